// The cooperative wall-clock bound of ExecOptions.deadline. The engine is synchronous, so a call that loops until its
// gas cap would hold the event loop for seconds; the interpreter checks the clock where every loop must pass.
import type { Evm } from './interpreter/context.ts';

/** Thrown out of deadline-bounded execution when the deadline passes (the WorldState is left mid-transaction). */
export class ExecutionAborted extends Error {
  constructor() {
    super('execution aborted');
    this.name = 'ExecutionAborted';
  }
}

/** At a taken jump: reads the clock every 256th time (Date.now() costs several times a jump). */
export function jumpDeadline(ev: Evm): void {
  if ((++ev.ticks & 255) === 0 && Date.now() > ev.deadline) throw new ExecutionAborted();
}

/** At a frame entry: frames are rarer than jumps and may each do little, so every one reads the clock. */
export function frameDeadline(ev: Evm): void {
  if (Date.now() > ev.deadline) throw new ExecutionAborted();
}
