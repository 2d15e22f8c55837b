// A forked chain's history up to the fork block N: blocks, transactions, receipts and logs at heights ≤ N are the
// upstream's, answered by asking it (the local chain holds only its own blocks above N). Answers are cached in
// memory, and through `persist` in the fork's disk cache so a restart does not ask again: history at or below N
// never changes. Upstream objects above N (the upstream kept going after the fork)
// are not this chain's, and read as absent.
import { LRUCache } from 'lru-cache';
import type { Upstream } from './upstream.ts';

/** Hex quantity as the upstream expects it. */
export const quantity = (n: bigint): string => '0x' + n.toString(16);

/** Bytes the answers may hold without a budget. */
const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;

/**
 * An answer's memory, estimated from its JSON text (two bytes a character as V8 may hold it, plus the objects).
 * Answers are measured once, when fetched or read back from disk, never on the read path.
 */
function answerBytes(entry: { value: unknown }, key: string): number {
  return 256 + 2 * (key.length + (JSON.stringify(entry.value) ?? '').length);
}

/** The upstream's history below and at the fork block, proxied and cached. */
export class ForkHistory {
  private readonly cache: LRUCache<string, { value: unknown }>;

  constructor(
    private readonly upstream: Upstream,
    /** The fork block's number: the last height the upstream answers for. */
    readonly forkNumber: bigint,
    /** Called with each answer fetched (the fork's disk cache writes it down). */
    private readonly persist?: (key: string, value: unknown) => void,
    maxBytes = DEFAULT_MAX_BYTES,
  ) {
    this.cache = new LRUCache({ max: 4096, maxSize: maxBytes, sizeCalculation: answerBytes });
  }

  /** Estimated bytes of the answers held in memory. */
  get bytes(): number {
    return this.cache.calculatedSize;
  }

  /** An answer read back from the disk cache (by its {@link ask} key). */
  remember(key: string, value: unknown): void {
    this.cache.set(key, { value });
  }

  /** Whether height `n` belongs to the upstream's part of the chain. */
  isUpstream(n: bigint): boolean {
    return n <= this.forkNumber;
  }

  /** A block (by number ≤ N) as the upstream formats it; null when it has none. */
  blockByNumber(n: bigint, full: boolean): Promise<unknown> {
    return this.ask('eth_getBlockByNumber', [quantity(n), full]);
  }

  /** A block by hash, if the upstream has it at or below N (else null). */
  async blockByHash(hash: string, full: boolean): Promise<unknown> {
    return this.belowFork(await this.ask('eth_getBlockByHash', [hash, full]), 'number');
  }

  /** A transaction by hash, if the upstream mined it at or below N (else null). */
  async transaction(hash: string): Promise<unknown> {
    return this.belowFork(await this.ask('eth_getTransactionByHash', [hash]), 'blockNumber');
  }

  /** A receipt by transaction hash, if the upstream mined it at or below N (else null). */
  async receipt(hash: string): Promise<unknown> {
    return this.belowFork(await this.ask('eth_getTransactionReceipt', [hash]), 'blockNumber');
  }

  /** Any other read of the upstream's history (the caller keeps the block at or below N). */
  call(method: string, params: unknown[]): Promise<unknown> {
    return this.ask(method, params);
  }

  /** Logs of the filter `filter` (its bounds at or below N), in the upstream's order. */
  async logs(filter: Record<string, unknown>): Promise<unknown[]> {
    const r = await this.ask('eth_getLogs', [filter]);
    if (!Array.isArray(r)) return [];
    return r.filter((l) => this.belowFork(l, 'blockNumber') !== null);
  }

  /** `v` when its height field is at or below N; null otherwise (a pending upstream object has none). */
  private belowFork(v: unknown, field: string): unknown {
    if (v === null || typeof v !== 'object') return null;
    const n = (v as Record<string, unknown>)[field];
    return typeof n === 'string' && BigInt(n) <= this.forkNumber ? v : null;
  }

  private async ask(method: string, params: unknown[]): Promise<unknown> {
    const key = method + JSON.stringify(params);
    const hit = this.cache.get(key);
    if (hit) return hit.value;
    const value = await this.upstream.call(method, params);
    this.cache.set(key, { value });
    this.persist?.(key, value);
    return value;
  }
}
