// A per-opcode feed for tracers that copies nothing up front. ethereumjs's own `step` event copies the whole stack
// and memory into every event (a 1M-gas transaction spent most of its trace time in those copies); this feed hands
// the listener a live view of the interpreter instead, and the listener copies only what it reads.
//
// How: the opcode table is per EVM instance (getOpcodesForHF builds it for each EVM, and the interpreter's jump
// analysis caches entries from it), so each entry is replaced by one whose gas handler reports the step. The
// interpreter calls the gas handler of a "dynamic gas" opcode right where it would emit `step` (after the dynamic
// cost is known, before gas is charged and the opcode runs), so every entry is marked dynamic; opcodes with static
// gas get a handler that returns their fee unchanged. A failing dynamic gas handler reports the step first, as the
// interpreter does for its own event.
import type { EVM } from '@ethereumjs/evm';

/** The interpreter's run state, as far as the feed reads it (ethereumjs internals, typed loosely). */
interface RunState {
  programCounter: number;
  opCode: number;
  gasLeft: bigint;
  gasRefund: bigint;
  memoryWordCount: bigint;
  stack: { _store: bigint[]; _len: number };
  memory: { _store: Uint8Array };
  env: { depth: number };
}

type GasHandler = (rs: RunState, gas: bigint, common: unknown) => bigint | Promise<bigint>;
interface OpInfo {
  code: number;
  name: string;
  fullName: string;
  fee: number;
  isAsync: boolean;
  dynamicGas: boolean;
  isInvalid: boolean;
}
interface OpEntry {
  opcodeInfo: OpInfo;
  opHandler: unknown;
  gasHandler?: GasHandler;
}

/**
 * One opcode about to run. Scalars are fixed at the step; stack and memory reads go to the live interpreter, so
 * they are exact while the listener runs (later they show the frame's current state).
 */
export class OpStep {
  constructor(
    private readonly rs: RunState,
    readonly pc: number,
    /** The opcode byte (the real one, also for undefined opcodes). */
    readonly op: number,
    /** ethereumjs' full name (PUSH1, not PUSH; INVALID for undefined opcodes). */
    readonly opName: string,
    /** Gas left before the opcode. */
    readonly gasLeft: bigint,
    /** Static + dynamic gas of the opcode. */
    readonly cost: bigint,
    readonly refund: bigint,
    /** 0 for the transaction's own frame. */
    readonly depth: number,
    /** Memory size in bytes before the opcode (before any expansion it pays for). */
    readonly memoryLength: number,
  ) {}

  /** Number of stack items. */
  get stackLength(): number {
    return this.rs.stack._len;
  }

  /** Stack item `i` counted from the top (0 = top); the caller checks `i < stackLength`. */
  peek(i: number): bigint {
    const s = this.rs.stack;
    return s._store[s._len - 1 - i]!;
  }

  /** A copy of the stack, bottom → top. */
  stack(): bigint[] {
    const s = this.rs.stack;
    return s._store.slice(0, s._len);
  }

  /** A copy of memory[offset, offset + size); bytes past the memory's end read as zero. */
  memorySlice(offset: number, size: number): Uint8Array {
    const out = new Uint8Array(size);
    const end = Math.min(this.memoryLength, offset + size);
    if (offset < end) out.set(this.rs.memory._store.subarray(offset, end));
    return out;
  }
}

/** Receives every opcode; a returned promise pauses the EVM until it settles (used to yield to the event loop). */
export type StepListener = (step: OpStep) => void | Promise<void>;

/** The feed of one EVM; set `listener` to receive steps, clear it to stop. */
export interface StepFeed {
  listener?: StepListener;
}

// INVALID has no handler: the interpreter throws before it would run one.
const isOpEntry = (e: unknown): e is OpEntry =>
  typeof e === 'object' &&
  e !== null &&
  typeof (e as OpEntry).opcodeInfo?.code === 'number' &&
  (typeof (e as OpEntry).opHandler === 'function' || (e as OpEntry).opcodeInfo.isInvalid);

/**
 * Installs the feed on `evm` (once per EVM; every later message and transaction of that EVM goes through it).
 * Returns undefined when ethereumjs' internals are not what this relies on, so the caller can fall back to `step`.
 */
/**
 * Whether `e` is an EVMError (an exceptional halt), by the discriminator the EVM's own interpreter checks
 * (`errorType === EVMErrorTypeString`). Not `instanceof`: importing the class from @ethereumjs/evm here would bundle
 * the whole EVM into the startup chunk (see app/evm/vm.ts).
 */
function isEvmError(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { errorType?: unknown }).errorType === 'EVMError';
}

export function installStepFeed(evm: EVM): StepFeed | undefined {
  const map = (evm as unknown as { _opcodeMap?: unknown[] })._opcodeMap;
  if (!Array.isArray(map) || map.length < 256 || !map.every(isOpEntry)) return undefined;
  const feed: StepFeed = {};
  const report = (rs: RunState, info: OpInfo, gas: bigint, words: bigint): bigint | Promise<bigint> => {
    const listener = feed.listener;
    if (!listener) return gas;
    const step = new OpStep(
      rs,
      rs.programCounter,
      rs.opCode,
      info.fullName,
      rs.gasLeft,
      gas,
      rs.gasRefund,
      rs.env.depth,
      Number(words) * 32,
    );
    const pending = listener(step);
    return pending ? pending.then(() => gas) : gas;
  };
  const failed = (rs: RunState, info: OpInfo, gas: bigint, words: bigint, e: unknown): never | Promise<never> => {
    if (!isEvmError(e)) throw e;
    const r = report(rs, info, gas, words);
    if (r instanceof Promise) return r.then(() => Promise.reject(e));
    throw e;
  };
  const wrapped = new Map<OpEntry, OpEntry>();
  for (let i = 0; i < 256; i++) {
    const entry = map[i] as OpEntry;
    let w = wrapped.get(entry);
    if (!w) {
      const info = entry.opcodeInfo;
      const inner = entry.gasHandler;
      const gasHandler: GasHandler = inner
        ? (rs, gas, common) => {
            const words = rs.memoryWordCount;
            let r: bigint | Promise<bigint>;
            try {
              r = inner(rs, gas, common);
            } catch (e) {
              return failed(rs, info, gas, words, e);
            }
            if (r instanceof Promise)
              return r.then(
                (g) => report(rs, info, g, words),
                (e: unknown) => failed(rs, info, gas, words, e),
              );
            return report(rs, info, r, words);
          }
        : (rs, gas) => report(rs, info, gas, rs.memoryWordCount);
      // Opcode objects are frozen; a copy marked dynamic routes every opcode through the gas handler above.
      const Ctor = info.constructor as new (o: object) => OpInfo;
      const dynamicInfo = new Ctor({
        code: info.code,
        name: info.name,
        fullName: info.fullName,
        fee: info.fee,
        isAsync: info.isAsync,
        dynamicGas: true,
      });
      w = { ...entry, opcodeInfo: dynamicInfo, gasHandler };
      wrapped.set(entry, w);
    }
    map[i] = w;
  }
  return feed;
}
