// eth_getLogs: resolves a filter's block range, asks the log index which blocks can match, and reads only those
// blocks' receipts. Ranges and result sizes are capped by app.toml (block-range-cap, logs-cap).
import type { CommittedBlock } from '../app/app.ts';
import type { LogRecord } from '../store/records.ts';
import { InvalidParamsError, LimitExceededError, NotFoundError } from '../errors/index.ts';
import type { ChainStore } from '../store/chainStore.ts';
import type { LogCriteria, LogMatch, RangeBound } from './criteria.ts';
import { matchesLog } from './criteria.ts';
import type { LogIndex } from './logIndex.ts';

/** A log with its position in the chain: what eth_getLogs and the log streams return. */
export interface LogEntry {
  log: LogRecord;
  blockNumber: bigint;
  blockHash: Uint8Array;
  blockTimestamp: bigint;
  txHash: Uint8Array;
  txIndex: number;
  /** Block-wide index. */
  logIndex: number;
}

/** app.toml limits of a log query; 0 disables a limit. */
export interface LogLimits {
  blockRangeCap: number;
  logsCap: number;
}

/** Every log of a freshly committed block, in order (what filters and subscriptions see). */
export function committedLogs(c: CommittedBlock): LogEntry[] {
  const out: LogEntry[] = [];
  let logIndex = 0;
  c.receipts.forEach((r, txIndex) => {
    for (const log of r.logs) {
      out.push({
        log,
        blockNumber: c.block.number,
        blockHash: c.block.hash,
        blockTimestamp: c.block.header.timestamp,
        txHash: c.block.txHashes[txIndex]!,
        txIndex,
        logIndex: logIndex++,
      });
    }
  });
  return out;
}

/** Runs log queries over the stored chain. */
export class LogQuery {
  constructor(
    private readonly chain: ChainStore,
    private readonly index: LogIndex,
    private readonly headNumber: () => bigint,
    private readonly limits: LogLimits,
  ) {}

  /** The logs matching a filter object (range or EIP-234 block hash), in chain order. */
  getLogs(c: LogCriteria): LogEntry[] {
    const out: LogEntry[] = [];
    if (c.blockHash !== undefined) {
      const n = this.chain.numberOfHash(c.blockHash);
      if (n === undefined || n > this.headNumber()) throw new NotFoundError('unknown block');
      this.collect(n, c, out);
      return out;
    }
    const { from, to } = this.resolveRange(c.fromBlock, c.toBlock);
    const cap = this.limits.blockRangeCap;
    if (cap > 0 && to - from + 1n > BigInt(cap)) throw new LimitExceededError(`exceed maximum block range: ${cap}`);
    for (const n of this.index.candidates(c, from, to)) this.collect(n, c, out);
    return out;
  }

  /** Resolves fromBlock/toBlock (default latest) against the head; pending, safe and finalized are the head. */
  resolveRange(fromBlock: RangeBound | undefined, toBlock: RangeBound | undefined): { from: bigint; to: bigint } {
    const head = this.headNumber();
    const resolve = (b: RangeBound | undefined): bigint => {
      if (b === undefined) return head;
      if (b.kind === 'number') return b.number;
      return b.tag === 'earliest' ? 0n : head;
    };
    const from = resolve(fromBlock);
    const to = resolve(toBlock);
    if (toBlock?.kind === 'number' && to > head)
      throw new InvalidParamsError('block range extends beyond current head block');
    if (from > to) throw new InvalidParamsError('invalid block range params');
    return { from, to };
  }

  /** Appends block n's logs that match, enforcing logs-cap. */
  private collect(n: bigint, m: LogMatch, out: LogEntry[]): void {
    const b = this.chain.blockLogs(n);
    if (!b) throw new NotFoundError(`block ${n} not found`);
    let logIndex = 0;
    for (const t of b.txs) {
      for (const log of t.logs) {
        if (matchesLog(m, log)) {
          if (this.limits.logsCap > 0 && out.length >= this.limits.logsCap) {
            throw new LimitExceededError(`query returned more than ${this.limits.logsCap} results`);
          }
          out.push({
            log,
            blockNumber: n,
            blockHash: b.hash,
            blockTimestamp: b.timestamp,
            txHash: t.txHash,
            txIndex: t.txIndex,
            logIndex,
          });
        }
        logIndex++;
      }
    }
  }
}
