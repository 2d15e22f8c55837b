// The oracle's traceTransfers logs (test/helpers/simulateOracle.ts): Kestrel's pre-engine collector on ethereumjs'
// beforeMessage/afterMessage/step events. Each frame collects its logs, a failed frame drops them, a successful one
// hands them to its parent.
import type { EVM, EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import { NATIVE_TOKEN, TRANSFER_TOPIC } from '../../src/app/evm/simulate/callLogs.ts';
import type { LogRecord } from '../../src/store/records.ts';

const LOG0 = 0xa0;
const LOG4 = 0xa4;
const SELFDESTRUCT = 0xff;

function word(b: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  out.set(b, 32 - b.length);
  return out;
}

function wordOf(n: bigint): Uint8Array {
  return word(Uint8Array.from(Buffer.from(n.toString(16).padStart(64, '0'), 'hex')));
}

/** A log of an open frame; a creation's address is filled in when its frame ends. */
interface PendingLog {
  log: LogRecord;
  /** The log's address is the contract being created (a LOG in init code). */
  atCreated: boolean;
  /** The transfer's recipient is the contract being created. */
  toCreated: boolean;
}

/** One open call frame: its logs so far and the address its code runs as (undefined while creating). */
interface Frame {
  logs: PendingLog[];
  address: Uint8Array | undefined;
}

/** Collects one call's logs at a time on one EVM. */
export class OracleLogCollector {
  private frames: Frame[] = [];
  private result: LogRecord[] = [];

  constructor(
    evm: EVM,
    /** The live balance of an account (SELFDESTRUCT moves all of it). */
    private readonly balanceOf: (address: Uint8Array) => Promise<bigint>,
  ) {
    evm.events!.on('beforeMessage', (m: Message) => this.enter(m));
    evm.events!.on('afterMessage', (r: EVMResult) => this.exit(r));
    evm.events!.on('step', (step: InterpreterStep, resolve?: (r?: unknown) => void) => {
      this.step(step).then(
        () => resolve?.(),
        () => resolve?.(),
      );
    });
  }

  private async step(step: InterpreterStep): Promise<void> {
    const frame = this.frames[this.frames.length - 1];
    if (frame === undefined) return;
    const op = step.opcode.code;
    const peek = (i: number): bigint => step.stack[step.stack.length - 1 - i]!;
    if (op === SELFDESTRUCT) return this.selfdestruct(frame, peek(0));
    if (op < LOG0 || op > LOG4) return;
    const topics: Uint8Array[] = [];
    for (let i = 0; i < op - LOG0; i++) topics.push(wordOf(peek(2 + i)));
    const offset = Number(peek(0));
    const size = Number(peek(1));
    // The step's memory already includes the expansion the LOG pays for.
    const data = new Uint8Array(size);
    data.set(step.memory.subarray(offset, offset + size));
    const address = frame.address ?? new Uint8Array(20);
    frame.logs.push({ log: { address, topics, data }, atCreated: frame.address === undefined, toCreated: false });
  }

  /**
   * SELFDESTRUCT moves the contract's whole balance without a message of its own (geth reports it as a frame), so its
   * transfer is logged here, before the opcode runs; a SELFDESTRUCT that fails takes its frame's logs with it.
   */
  private async selfdestruct(frame: Frame, beneficiaryWord: bigint): Promise<void> {
    if (frame.address === undefined) return;
    const value = await this.balanceOf(frame.address);
    if (value === 0n) return;
    const beneficiary = wordOf(beneficiaryWord & ((1n << 160n) - 1n));
    const log: LogRecord = {
      address: NATIVE_TOKEN,
      topics: [TRANSFER_TOPIC, word(frame.address), beneficiary],
      data: wordOf(value),
    };
    frame.logs.push({ log, atCreated: false, toCreated: false });
  }

  /** Starts a new call (clears what the previous one left). */
  reset(): void {
    this.frames = [];
    this.result = [];
  }

  private enter(m: Message): void {
    const frame: Frame = { logs: [], address: m.to?.bytes };
    this.frames.push(frame);
    const callcode =
      m.to !== undefined &&
      m.codeAddress !== undefined &&
      !m.delegatecall &&
      m.caller.equals(m.to) &&
      !m.codeAddress.equals(m.to);
    if (m.value === 0n || m.delegatecall || callcode) return;
    const log: LogRecord = {
      address: NATIVE_TOKEN,
      topics: [TRANSFER_TOPIC, word(m.caller.bytes), word(m.to?.bytes ?? new Uint8Array(20))],
      data: wordOf(m.value),
    };
    frame.logs.push({ log, atCreated: false, toCreated: m.to === undefined });
  }

  private exit(r: EVMResult): void {
    const frame = this.frames.pop();
    if (!frame) return;
    const created = r.createdAddress?.bytes;
    if (frame.address === undefined && created) {
      for (const p of frame.logs) {
        if (p.atCreated) p.log.address = created;
        if (p.toCreated) p.log.topics[2] = word(created);
        p.atCreated = p.toCreated = false;
      }
    }
    if (r.execResult.exceptionError !== undefined) return;
    const parent = this.frames[this.frames.length - 1];
    if (parent) parent.logs.push(...frame.logs);
    else this.result = frame.logs.map((p) => p.log);
  }

  /** The logs of the call that just ran (empty when it failed). */
  logs(): LogRecord[] {
    return this.result;
  }
}
