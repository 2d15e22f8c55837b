// Running one message and every frame it starts: the interpreter loop suspends a frame on CALL or CREATE, this
// driver runs the child and completes the parent's opcode, without JS recursion.
import type { Precompile } from './types.ts';
import { Evm, Frame, K_CREATE, S_CALL, S_RUNNING } from './interpreter/context.ts';
import { run } from './interpreter/interpreter.ts';
import { frameDeadline } from './deadline.ts';
import { completeCall, completeCreate } from './interpreter/ops-system.ts';
import { beginCall, beginCreate, finishFrame } from './frame-boundary.ts';

/**
 * Runs a begun frame and every frame it starts, without JS recursion: a CALL or CREATE opcode suspends its frame
 * (S_CALL) and the loop continues with the child; a finished child completes its parent's opcode.
 */
export function runFrames(ev: Evm, root: Frame): void {
  let f = root;
  for (;;) {
    run(ev, f);
    if (f.status === S_CALL) {
      f = ev.frameAt(f.depth + 1);
      if (ev.deadline !== 0) frameDeadline(ev);
      continue;
    }
    finishFrame(ev, f);
    if (f === root) return;
    const parent = ev.frameAt(f.depth - 1);
    if (f.kind >= K_CREATE) completeCreate(parent, f);
    else completeCall(parent, f);
    parent.status = S_RUNNING;
    f = parent;
  }
}

/** Runs a prepared call frame to its end. */
export function execCall(ev: Evm, c: Frame, transfer: boolean, precompile: Precompile | undefined): void {
  if (beginCall(ev, c, transfer, precompile)) runFrames(ev, c);
}

/** Runs a prepared create frame to its end. */
export function execCreate(ev: Evm, c: Frame): void {
  if (beginCreate(ev, c)) runFrames(ev, c);
}
