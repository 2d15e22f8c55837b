// The interpreter's working objects: one Evm per transaction (environment, logs, refund, frame pool) and one
// Frame per call depth (stack, memory, pc, gas), pooled so a call allocates neither stack nor memory.
import type { Address, BlockEnv, ExecStatus, Fork, Log, Precompile, Tracer } from '../types.ts';
import type { Account } from '../state/account.ts';
import type { WorldState } from '../state/world.ts';
import { EMPTY_BYTES } from '../../primitives/bytes.ts';
import type { CodeAnalysis } from './analysis.ts';
import { Memory } from './memory.ts';
import { STACK_LIMIT, staticGasOf } from './opcodes.ts';

// Frame end states (small integers in the loop; mapped to ExecStatus at the boundary).
export const S_RUNNING = 0;
export const S_STOP = 1;
export const S_RETURN = 2;
export const S_REVERT = 3;
export const S_OOG = 4;
export const S_INVALID = 5;
export const S_UNDERFLOW = 6;
export const S_OVERFLOW = 7;
export const S_BAD_JUMP = 8;
export const S_STATIC = 9;
export const S_RETURNDATA_OOB = 10;
export const S_DEPTH = 11;
export const S_BALANCE = 12;
export const S_COLLISION = 13;
export const S_CODE_SIZE = 14;
export const S_CODE_PREFIX = 15;
export const S_NONCE = 16;
export const S_PRECOMPILE = 17;
/** Internal: the frame is suspended on a child frame (never an end state). */
export const S_CALL = 18;

/** ExecStatus of each S_* code. */
export const STATUS_NAMES: readonly ExecStatus[] = [
  'success',
  'success',
  'success',
  'revert',
  'out_of_gas',
  'invalid_opcode',
  'stack_underflow',
  'stack_overflow',
  'bad_jump',
  'static_violation',
  'return_data_out_of_bounds',
  'call_depth',
  'insufficient_balance',
  'create_collision',
  'code_too_large',
  'invalid_code_prefix',
  'nonce_overflow',
  'precompile_failure',
];

// Frame kinds (index into CALL_KINDS).
export const K_CALL = 0;
export const K_CALLCODE = 1;
export const K_DELEGATECALL = 2;
export const K_STATICCALL = 3;
export const K_CREATE = 4;
export const K_CREATE2 = 5;
export const CALL_KINDS = ['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL', 'CREATE', 'CREATE2'] as const;

/**
 * An end that keeps the frame's remaining gas (STOP, RETURN, REVERT); every later code is an exceptional halt,
 * which consumes all gas. Relies on the S_* order above.
 */
export function keepsGas(s: number): boolean {
  return s <= S_REVERT;
}

/** A successful end (STOP, RETURN). */
export function isSuccess(s: number): boolean {
  return s === S_STOP || s === S_RETURN;
}

/** One call frame. Reused for every frame at its depth. */
export class Frame {
  kind = K_CALL;
  depth = 0;
  caller: Address = 0n;
  address: Address = 0n;
  codeAddress: Address = 0n;
  value = 0n;
  input: Uint8Array = EMPTY_BYTES;
  code: Uint8Array = EMPTY_BYTES;
  analysis: CodeAnalysis | undefined = undefined;
  acc!: Account;
  isStatic = false;
  /** Gas left, exact below 2^53. */
  gas = 0;
  /** Gas beyond MAX_SAFE_INTEGER (only when a tx's gas limit exceeds 2^53; see setGas). */
  gasExtra = 0n;
  readonly stack: bigint[] = new Array<bigint>(STACK_LIMIT).fill(0n);
  sp = 0;
  pc = 0;
  readonly mem = new Memory();
  returnData: Uint8Array = EMPTY_BYTES;
  status = S_RUNNING;
  output: Uint8Array = EMPTY_BYTES;
  // Set when the frame begins: what a failure reverts to, and the gas it started with (for tracers).
  snap = 0;
  logsLen = 0;
  refundSnap = 0;
  gasStart = 0;
  // Set by a suspended CALL*/CREATE*: where the child's output goes.
  retOff = 0;
  retSize = 0;
}

// Free pools of per-depth frame arrays. Pooled objects carry no chain state between uses (every field is set
// before a frame runs), and a nested executeTransaction takes its own array, so reuse is safe.
const framePools: Frame[][] = [];

const SAFE_GAS = Number.MAX_SAFE_INTEGER;
const SAFE_GAS_BIG = BigInt(SAFE_GAS);

/**
 * Sets a frame's gas from a bigint. Gas is a double in the loop; the part above 2^53 (state tests use gas limits
 * near 2^63) waits in gasExtra. No frame can spend 2^53 gas, so the double part never runs dry while gasExtra
 * holds some; only the 63/64 rule, GAS and frame boundaries need the exact total.
 */
export function setGas(f: Frame, total: bigint): void {
  if (total > SAFE_GAS_BIG) {
    f.gas = SAFE_GAS;
    f.gasExtra = total - SAFE_GAS_BIG;
  } else {
    f.gas = Number(total);
    f.gasExtra = 0n;
  }
}

/** A frame's exact gas left. */
export function totalGas(f: Frame): bigint {
  return BigInt(f.gas) + f.gasExtra;
}

/** Per-transaction execution context. */
export class Evm {
  readonly world: WorldState;
  readonly block: BlockEnv;
  readonly fork: Fork;
  /** The fork's gas table (opcodes.ts): the one per-fork difference the interpreter loop reads. */
  readonly staticGas: Int32Array;
  readonly tracer: Tracer | undefined;
  readonly precompiles: ReadonlyMap<Address, Precompile>;
  readonly origin: Address;
  readonly gasPrice: bigint;
  readonly blobHashes: readonly Uint8Array[];
  readonly logs: Log[] = [];
  /** The refund counter (EIP-3529); may go negative inside a frame, never at its end. */
  refund = 0;
  /** ExecOptions.deadline, 0 when unbounded. */
  deadline = 0;
  /** Taken jumps since the transaction began (the deadline is read every 256th). */
  ticks = 0;
  private readonly frames: Frame[];

  constructor(
    world: WorldState,
    block: BlockEnv,
    fork: Fork,
    tracer: Tracer | undefined,
    precompiles: ReadonlyMap<Address, Precompile>,
    origin: Address,
    gasPrice: bigint,
    blobHashes: readonly Uint8Array[],
  ) {
    this.world = world;
    this.block = block;
    this.fork = fork;
    this.staticGas = staticGasOf(fork);
    this.tracer = tracer;
    this.precompiles = precompiles;
    this.origin = origin;
    this.gasPrice = gasPrice;
    this.blobHashes = blobHashes;
    this.frames = framePools.pop() ?? [];
  }

  /** The frame running at `depth` (already set up). */
  frameAt(depth: number): Frame {
    return this.frames[depth]!;
  }

  /** The pooled frame for `depth`, reset for a new run. */
  frame(depth: number): Frame {
    let f = this.frames[depth];
    if (f === undefined) {
      f = new Frame();
      this.frames[depth] = f;
    }
    f.depth = depth;
    f.sp = 0;
    f.pc = 0;
    f.mem.reset();
    f.returnData = EMPTY_BYTES;
    f.output = EMPTY_BYTES;
    f.status = S_RUNNING;
    f.gasExtra = 0n;
    return f;
  }

  /** Returns the frames to the pool (the Evm must not run afterwards). */
  release(): void {
    if (framePools.length < 4) framePools.push(this.frames);
  }
}
