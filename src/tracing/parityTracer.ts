// Parity-style (OpenEthereum) flat call traces for trace_*: one entry per frame in the order frames open, each with
// its traceAddress and number of direct subtraces, shaped as Anvil (revm-inspectors) answers them.
import { addressToBytes } from '../primitives/bytes.ts';
import { PrestateTracer } from './prestateTracer.ts';
import type { OutputBudget } from './structLogger.ts';
import type {
  FrameEnter,
  FrameExit,
  FrameType,
  ParityAction,
  ParityTrace,
  StepEvent,
  Tracer,
  TraceResult,
  TxEnv,
} from './types.ts';
import { VmTracer } from './vmTracer.ts';

/** The low 160 bits of a stack word: the address SELFDESTRUCT pays. */
const ADDRESS_MASK = (1n << 160n) - 1n;

const SELFDESTRUCT = 0xff;

/** geth's failure texts → OpenEthereum's (as revm-inspectors words them). */
export function parityError(gethError: string): string {
  if (gethError === 'execution reverted') return 'Reverted';
  if (gethError.startsWith('out of gas') || gethError === 'gas uint64 overflow') return 'Out of gas';
  if (gethError.startsWith('invalid jump destination') || gethError.startsWith('invalid JUMP')) {
    return 'Bad jump destination';
  }
  if (gethError.startsWith('invalid opcode') || gethError.startsWith('undefined opcode')) return 'Bad instruction';
  if (gethError.startsWith('stack underflow')) return 'Stack underflow';
  if (gethError.startsWith('stack limit reached') || gethError === 'max call depth exceeded') return 'Out of stack';
  if (gethError === 'contract address collision') return 'Contract address collision';
  if (gethError === 'write protection') return 'Mutable Call In Static Context';
  if (gethError === 'insufficient balance for transfer') return 'Insufficient balance for transfer';
  if (gethError.startsWith('precompile') || gethError.includes('precompile')) return 'Built-in failed';
  return gethError.charAt(0).toUpperCase() + gethError.slice(1);
}

interface Open {
  trace: ParityTrace;
  type: FrameType;
  to: Uint8Array;
}

/** Builds the flat Parity trace list of one transaction from the frame hooks (and SELFDESTRUCT steps). */
export class ParityTracer implements Tracer {
  private readonly traces: ParityTrace[] = [];
  private readonly open: Open[] = [];
  private env?: TxEnv;

  /** Steps are watched for SELFDESTRUCT only: the engine opens no frame for it. */
  readonly wantsSteps = true;

  /** Keeps the environment (the top frame's gas is the limit less intrinsic gas). */
  txStart(env: TxEnv): void {
    this.env = env;
  }

  /** Opens a trace entry under its parent. */
  enter(f: FrameEnter): void {
    const parent = this.open[this.open.length - 1];
    const traceAddress = parent ? [...parent.trace.traceAddress, parent.trace.subtraces++] : [];
    const gas = f.depth === 0 && this.env ? this.env.gasLimit - this.env.intrinsicGas : f.gas;
    const value = f.value ?? 0n;
    const action: ParityAction =
      f.type === 'CREATE' || f.type === 'CREATE2'
        ? { kind: 'create', creationMethod: f.type.toLowerCase(), from: f.from, gas, init: f.input, value }
        : { kind: 'call', callType: f.type.toLowerCase(), from: f.from, to: f.to, gas, input: f.input, value };
    const trace: ParityTrace = { action, subtraces: 0, traceAddress };
    this.traces.push(trace);
    this.open.push({ trace, type: f.type, to: f.to });
  }

  /** Fills in the frame's outcome. */
  exit(x: FrameExit): void {
    const frame = this.open.pop();
    if (!frame) return;
    const { trace } = frame;
    if (x.error !== undefined) trace.error = parityError(x.error);
    // revm-inspectors keeps a result for a success or a revert (with its output), none for other failures.
    if (x.error !== undefined && !x.reverted) return;
    trace.result =
      trace.action.kind === 'create'
        ? { kind: 'create', gasUsed: x.gasUsed, address: frame.to, code: x.output }
        : { kind: 'call', gasUsed: x.gasUsed, output: x.output };
  }

  /** A SELFDESTRUCT becomes a suicide entry under the frame that ran it. */
  step(s: StepEvent): void {
    if (s.op !== SELFDESTRUCT || s.stackLength < 1 || !this.env) return;
    const parent = this.open[this.open.length - 1];
    if (!parent) return;
    const address = s.frame.self;
    this.traces.push({
      action: {
        kind: 'suicide',
        address,
        refundAddress: addressToBytes(s.peek(0) & ADDRESS_MASK),
        balance: this.env.state.account(address)?.balance ?? 0n,
      },
      subtraces: 0,
      traceAddress: [...parent.trace.traceAddress, parent.trace.subtraces++],
    });
  }

  /** The flat list, in the order the frames opened. */
  result(): TraceResult {
    return { kind: 'parity', value: this.traces };
  }
}

/** The optional parts of a trace_replay* answer. */
export interface ReplayParts {
  stateDiff?: boolean;
  /** The vmTrace's size is charged to this budget. */
  vmTrace?: OutputBudget;
}

/**
 * trace_replay*'s tracer: the Parity traces and, when asked, geth's prestate diff (`stateDiff`) and the opcode-level
 * vmTrace of the same run (one replay feeds all three).
 */
export class ParityReplayTracer implements Tracer {
  private readonly parity = new ParityTracer();
  private readonly diff?: PrestateTracer;
  private readonly vm?: VmTracer;
  readonly wantsSteps = true;

  constructor(parts: ReplayParts = {}) {
    if (parts.stateDiff) this.diff = new PrestateTracer({ diffMode: true, disableCode: false, disableStorage: false });
    if (parts.vmTrace) this.vm = new VmTracer(parts.vmTrace);
  }

  /** Every tracer sees the transaction start. */
  txStart(env: TxEnv): void {
    this.parity.txStart(env);
    this.diff?.txStart?.(env);
    this.vm?.txStart(env);
  }

  /** Frames open (the diff follows state through steps only). */
  enter(f: FrameEnter): void {
    this.parity.enter(f);
    this.vm?.enter(f);
  }

  /** Frames close. */
  exit(x: FrameExit): void {
    this.parity.exit(x);
    this.vm?.exit();
  }

  /** Every tracer sees each step (the diff reads the accounts and slots it touches). */
  step(s: StepEvent): void {
    this.parity.step(s);
    this.diff?.step?.(s);
    this.vm?.step(s);
  }

  /** A failed opcode loses its vmTrace execution record. */
  fault(s: StepEvent, error: string): void {
    this.vm?.fault(s, error);
  }

  /** The diff sees stateful precompiles' accesses. */
  stateAccess(address: Uint8Array, slot?: Uint8Array): void {
    this.diff?.stateAccess?.(address, slot);
  }

  /** The diff is taken once the state holds the transaction's effects. */
  txEnd(): void {
    this.diff?.txEnd();
  }

  /** The traces, with the diff and the vmTrace when asked. */
  result(): TraceResult {
    const traces = this.parity.result();
    if (traces.kind !== 'parity') return traces;
    const diff = this.diff?.result();
    return {
      ...traces,
      ...(diff?.kind === 'prestateDiff' ? { stateDiff: diff.value } : {}),
      ...(this.vm ? { vmTrace: this.vm.result() } : {}),
    };
  }
}
