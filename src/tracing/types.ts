// The tracer contract: what the replay driver tells a tracer while a transaction executes, and the typed results
// the built-in tracers produce (rendered to geth's JSON by rpc/namespaces/debug/format.ts).
import type { SyncState } from './syncState.ts';

/** The kind of a call frame, as geth's tracers name it. */
export type FrameType = 'CALL' | 'CALLCODE' | 'DELEGATECALL' | 'STATICCALL' | 'CREATE' | 'CREATE2';

/** The transaction (or call) being traced and the block it runs in. */
export interface TxEnv {
  from: Uint8Array;
  /** Recipient; undefined for a contract creation. */
  to?: Uint8Array;
  value: bigint;
  input: Uint8Array;
  gasLimit: bigint;
  /** Effective gas price paid per unit of gas. */
  gasPrice: bigint;
  intrinsicGas: bigint;
  blockNumber: bigint;
  timestamp: bigint;
  coinbase: Uint8Array;
  /** Present when the trace replays a mined transaction. */
  blockHash?: Uint8Array;
  txIndex?: number;
  txHash?: Uint8Array;
  /** Reads state as of the current execution point (synchronous; safe at every hook). */
  state: SyncState;
  /** True for addresses of the active precompiles. */
  isPrecompile(addr: Uint8Array): boolean;
}

/** A call frame being entered. `depth` is 0 for the transaction's own frame. */
export interface FrameEnter {
  depth: number;
  type: FrameType;
  from: Uint8Array;
  /** Callee (code address for DELEGATECALL/CALLCODE; the new contract for creations). */
  to: Uint8Array;
  /** The storage/execution context address (differs from `to` for DELEGATECALL and CALLCODE). */
  self: Uint8Array;
  /** The EVM's CALLER inside the frame (for DELEGATECALL: the caller of the delegating frame). */
  caller: Uint8Array;
  input: Uint8Array;
  gas: bigint;
  /** Undefined for STATICCALL (geth omits it). */
  value?: bigint;
}

/** A call frame that returned. */
export interface FrameExit {
  depth: number;
  output: Uint8Array;
  gasUsed: bigint;
  /** geth-worded error; undefined on success. */
  error?: string;
  reverted: boolean;
}

/**
 * One executed opcode, before it runs. Scalars are fixed; stack and memory are read from the live EVM on demand
 * (exact during the step() call), so a tracer copies only what it reads.
 */
export interface StepEvent {
  readonly pc: number;
  readonly op: number;
  readonly opName: string;
  /** Gas left before the opcode. */
  readonly gas: bigint;
  /** Gas the opcode costs (static + dynamic; CALL-family forwarded gas is added by the struct logger). */
  readonly cost: bigint;
  /** 1-based call depth, as geth reports it. */
  readonly depth: number;
  readonly refund: bigint;
  readonly stackLength: number;
  /** Stack item `i` from the top (0 = top); callers check `i < stackLength`. */
  peek(i: number): bigint;
  /** A copy of the stack, bottom → top. */
  stack(): bigint[];
  /** Memory size in bytes. */
  readonly memoryLength: number;
  /** A copy of memory[offset, offset + size); bytes past the end read as zero. */
  memorySlice(offset: number, size: number): Uint8Array;
  /** The frame the opcode runs in. */
  readonly frame: FrameEnter;
  /** Return data of the last call made by this frame. */
  readonly returnData: Uint8Array;
}

/** How the traced transaction ended. */
export interface TxOutcome {
  gasUsed: bigint;
  failed: boolean;
  returnValue: Uint8Array;
  /** geth-worded error of the top frame, if it failed. */
  error?: string;
  /** The contract created by a creation transaction, if any. */
  createdAddress?: Uint8Array;
}

/** The hooks a tracer may implement; every hook is synchronous. Throwing aborts the trace. */
export interface Tracer {
  /**
   * False when the tracer needs neither step() nor fault(): the EVM then emits no step events at all, which
   * makes execution an order of magnitude faster (ethereumjs copies stack and memory for every event).
   */
  readonly wantsSteps?: boolean;
  txStart?(env: TxEnv): void;
  enter?(frame: FrameEnter): void;
  exit?(frame: FrameExit): void;
  step?(step: StepEvent): void;
  /** An opcode failed; `step` is the last step of the failing frame. */
  fault?(step: StepEvent, error: string): void;
  /** A stateful precompile reads or writes an account (`slot` absent) or a storage slot. */
  stateAccess?(address: Uint8Array, slot?: Uint8Array): void;
  txEnd?(outcome: TxOutcome): void;
  /** The tracer's result once the transaction finished. */
  result(): TraceResult;
}

/** One struct log entry (geth's StructLog). */
export interface StructLog {
  pc: number;
  op: string;
  gas: bigint;
  gasCost: bigint;
  depth: number;
  stack?: bigint[];
  memory?: Uint8Array;
  /** Slot → value (32 bytes each), cumulative for the contract; only at SLOAD/SSTORE. */
  storage?: Map<string, [Uint8Array, Uint8Array]>;
  refund: bigint;
  returnData?: Uint8Array;
  error?: string;
}

/** The default struct logger's result. */
export interface StructTrace {
  gas: bigint;
  failed: boolean;
  returnValue: Uint8Array;
  structLogs: StructLog[];
}

/** A log emitted inside a call frame (callTracer withLog). */
export interface CallLog {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
  /** Number of sub-calls the frame had made when the log was emitted. */
  position: number;
}

/** callTracer's frame. */
export interface CallFrame {
  type: FrameType;
  from: Uint8Array;
  to?: Uint8Array;
  value?: bigint;
  gas: bigint;
  gasUsed: bigint;
  input: Uint8Array;
  output?: Uint8Array;
  error?: string;
  revertReason?: string;
  calls: CallFrame[];
  logs: CallLog[];
}

/** One account in prestateTracer's output; absent fields are omitted. */
export interface PrestateAccount {
  balance?: bigint;
  nonce?: bigint;
  code?: Uint8Array;
  codeHash?: Uint8Array;
  storage?: Map<string, [Uint8Array, Uint8Array]>;
}

/** Address (lower-case hex key) → [address bytes, account]. */
export type PrestateMap = Map<string, [Uint8Array, PrestateAccount]>;

/** Every tracer's result, tagged for the formatter. */
export type TraceResult =
  | { kind: 'struct'; value: StructTrace }
  | { kind: 'call'; value: CallFrame }
  | { kind: 'prestate'; value: PrestateMap }
  | { kind: 'prestateDiff'; value: { pre: PrestateMap; post: PrestateMap } }
  /** trace_* (Parity's flat call traces). */
  | {
      kind: 'parity';
      value: ParityTrace[];
      stateDiff?: { pre: PrestateMap; post: PrestateMap };
      vmTrace?: VmTrace;
    }
  | { kind: 'fourByte'; value: Array<{ selector: Uint8Array; size: number; count: number }> }
  /** Already-JSON output (noopTracer, JS tracers). */
  | { kind: 'json'; value: unknown };

/** Struct logger switches (geth's logger.Config). */
export interface StructLoggerOptions {
  disableStack: boolean;
  disableStorage: boolean;
  enableMemory: boolean;
  enableReturnData: boolean;
  /** Max entries recorded; 0 = unlimited. Execution continues past the limit. */
  limit: number;
}

/** A decoded trace configuration (geth's TraceConfig). */
export interface TraceConfig extends StructLoggerOptions {
  /** Built-in name or JS source; undefined = struct logger. */
  tracer?: string;
  /** The tracer's own configuration (geth's tracerConfig JSON object). */
  tracerConfig: Record<string, unknown>;
  /** Per-transaction time limit in milliseconds. */
  timeoutMs: number;
}

/** What a frame did, in Parity's vocabulary. */
export type ParityAction =
  | { kind: 'call'; callType: string; from: Uint8Array; to: Uint8Array; gas: bigint; input: Uint8Array; value: bigint }
  | { kind: 'create'; creationMethod: string; from: Uint8Array; gas: bigint; init: Uint8Array; value: bigint }
  | { kind: 'suicide'; address: Uint8Array; refundAddress: Uint8Array; balance: bigint };

/** A frame's outcome; absent for a frame that failed without reverting and for a selfdestruct. */
export type ParityOutcome =
  | { kind: 'call'; gasUsed: bigint; output: Uint8Array }
  | { kind: 'create'; gasUsed: bigint; address: Uint8Array; code: Uint8Array };

/** One flat trace entry of one transaction. */
export interface ParityTrace {
  action: ParityAction;
  result?: ParityOutcome;
  error?: string;
  subtraces: number;
  traceAddress: number[];
}

/** What an executed opcode did; null on the op record when the opcode failed (out of gas, bad jump…). */
export interface VmExecuted {
  /** Stack items the opcode left on top, bottom → top (DUPn and SWAPn show n+1 items, as OpenEthereum). */
  push: bigint[];
  /** The memory region the opcode wrote (for CALL-family opcodes: the return-data region). */
  mem: { off: number; data: Uint8Array } | null;
  /** SSTORE's key and new value. */
  store: { key: bigint; val: bigint } | null;
  /** Gas left after the opcode (after the callee returned, for an opcode that opened a frame). */
  used: bigint;
}

/** One executed opcode. */
export interface VmOp {
  pc: number;
  op: string;
  /** The opcode's gas cost; for an opcode that opened a frame, the gas handed to the callee is included. */
  cost: bigint;
  ex: VmExecuted | null;
  /** The frame this opcode opened. */
  sub: VmTrace | null;
}

/** One frame's code and opcodes. */
export interface VmTrace {
  code: Uint8Array;
  ops: VmOp[];
}
