// What is left of calls on @ethereumjs/vm: the deadline eth_simulateV1 arms on its VMs, and geth's up-front initcode
// check shared with the engine's call paths (call.ts). eth_call, eth_estimateGas and debug_traceCall run on Kestrel's
// engine.
import type { VM } from '@ethereumjs/vm';
import { ExecutionError } from '../../errors/index.ts';
import type { CallRequest } from '../../primitives/callRequest.ts';
import { CallTimeout } from './ethereumjs.ts';

/** EIP-3860's limit on init code (2 × the 24576-byte code limit). */
export const MAX_INITCODE_SIZE = 49152;

type OpEntry = { opHandler: (runState: unknown, common: unknown) => unknown };

/** The deadline of the call a context is running (0 = none); set before each call, read by the armed checks. */
export interface CallClock {
  deadline: number;
}

/**
 * Bounds a call's wall time without a per-opcode `step` listener (ethereumjs copies the whole EVM memory into every
 * step event, which made memory-heavy calls crawl). Every loop in EVM code passes through JUMP or JUMPI, and every
 * frame through a message, so the deadline is checked there. The opcode table is per EVM instance (built by
 * getOpcodesForHF for each EVM), so wrapping its entries touches no other VM. Armed once per VM; each call sets
 * `clock.deadline`.
 */
export function armDeadline(vm: VM, clock: CallClock): void {
  const check = (): void => {
    if (clock.deadline !== 0 && Date.now() > clock.deadline) throw new CallTimeout();
  };
  vm.evm.events!.on('beforeMessage', check);
  const map = (vm.evm as unknown as { _opcodeMap?: OpEntry[] })._opcodeMap;
  if (!Array.isArray(map) || typeof map[0x56]?.opHandler !== 'function' || typeof map[0x57]?.opHandler !== 'function') {
    // Library internals changed: fall back to the (slower) step hook rather than lose the timeout.
    let steps = 0;
    vm.evm.events!.on('step', () => {
      if ((++steps & 1023) === 0) check();
    });
    return;
  }
  let jumps = 0;
  for (const op of [0x56, 0x57]) {
    const entry = map[op]!;
    const handler = entry.opHandler;
    map[op] = {
      ...entry,
      opHandler: (runState, common) => {
        if ((++jumps & 255) === 0) check();
        return handler(runState, common);
      },
    };
  }
}

/** geth's refusal of a creation whose init code exceeds EIP-3860's limit (checked before anything else). */
export function checkInitcode(req: CallRequest): void {
  const size = req.data?.length ?? 0;
  if (req.to === undefined && size > MAX_INITCODE_SIZE) {
    throw new ExecutionError(`max initcode size exceeded: code size ${size} limit ${MAX_INITCODE_SIZE}`);
  }
}
