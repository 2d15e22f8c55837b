// A forked chain's view of its upstream at the fork block N: the accounts, code and slots fetched so far (immutable:
// block N never changes), persisted as JSON lines under the home so a restart fetches nothing again, and which of
// them a local block has committed (from that height on the local trie is authoritative for them).
//
// State root: like Anvil, a forked chain's root is the root of its local trie, which holds only what was touched;
// it is not upstream's root. Fetched values enter the local trie as state edits of the next block (committed with
// the first block after they were read), so every block's stateRoot stays the root of what the block executed on.
import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Address } from '../../evm/types.ts';
import { keccak256 } from '../../primitives/keccak.ts';
import { EMPTY_CODE_HASH } from '../../primitives/hash.ts';
import { bytesToHex, hexToBytes } from '../../primitives/hex.ts';
import { KestrelError, UpstreamError } from '../../errors/index.ts';
import type { StateEdit } from '../stateEdits.ts';
import type { RpcCall, Upstream } from './upstream.ts';
import { verifyCode, verifyProof } from './proofs.ts';
import { type ForkPoint, type ForkPointJson, forkPointToJson } from './forkPoint.ts';
import { ForkHistory } from './history.ts';

/** An upstream account at the fork block; null when it is empty there (no nonce, balance or code). */
export interface ForkAccount {
  nonce: bigint;
  balance: bigint;
  code: Uint8Array;
  codeHash: Uint8Array;
}

/** Reads a discovery run needed and the cache lacked; fetched together in one batch. */
export class Misses {
  readonly accounts = new Set<Address>();
  readonly slots = new Map<Address, Set<bigint>>();
  /** Upstream block numbers below the fork whose hash BLOCKHASH asked for. */
  readonly blocks = new Set<bigint>();

  /** Whether nothing was missed. */
  get empty(): boolean {
    return this.accounts.size === 0 && this.slots.size === 0 && this.blocks.size === 0;
  }

  /** Records a slot (and its account). */
  slot(address: Address, slot: bigint): void {
    let s = this.slots.get(address);
    if (s === undefined) this.slots.set(address, (s = new Set()));
    s.add(slot);
  }
}

/** One line of the cache file. */
type CacheLine =
  | { fork: { url: string; block: string; point: ForkPointJson } }
  | { block: string; hash: string }
  | { a: string; n: string; b: string; c: string }
  | { a: string; e: true }
  | { a: string; s: string; v: string }
  | { h: string; a: string; s?: string }
  | { rewound: string }
  /** A history answer (ForkHistory's key: method and params) and its value. */
  | { q: string; r: unknown };

/** The most discovery rounds one request may take (each fetches everything its run missed, in one batch). */
export const MAX_ROUNDS = 16;

const addrHex = (a: Address): string => '0x' + a.toString(16).padStart(40, '0');
/** A word as 0x hex, zero-padded to `bytes` when given (a slot key or value). */
const bigintToHex = (n: bigint, bytes = 0): string => '0x' + n.toString(16).padStart(bytes * 2, '0');

/** The fetched upstream state and its commit heights. */
export class ForkState {
  readonly accounts = new Map<Address, ForkAccount | null>();
  readonly slots = new Map<Address, Map<bigint, bigint>>();
  /** Upstream hashes of blocks below the fork (BLOCKHASH), by number. */
  private readonly blockHashes = new Map<bigint, Uint8Array>();
  private readonly codes = new Map<string, Uint8Array>();
  /** Local height at which an account's (slot's) fetched value entered the local trie. */
  private readonly committedAccounts = new Map<Address, bigint>();
  private readonly committedSlots = new Map<Address, Map<bigint, bigint>>();
  /** What the block being sealed carries (committed when it commits). */
  private carrying: { accounts: Address[]; slots: Array<[Address, bigint]> } | undefined;
  /** Whether the upstream proves state at the fork block: unknown until the first fetch asks it. */
  private proofs: 'unknown' | 'yes' | 'no' = 'unknown';
  /** Misses recorded by readers since the last {@link resolve} round began. */
  misses = new Misses();

  /** The fork block's number (hex quantity as sent upstream). */
  blockTag: string;
  /** Blocks, txs, receipts and logs at heights ≤ the fork block, from the upstream. */
  history: ForkHistory;

  constructor(
    public upstream: Upstream,
    /** The upstream block the chain forked from. */
    public point: ForkPoint,
    private readonly cacheFile: string,
    /** Bytes the history's in-memory answers may hold (the [cache] budget's fork share). */
    private readonly historyBytes?: number,
  ) {
    this.blockTag = '0x' + point.number.toString(16);
    this.history = this.historyOf(upstream, point);
    this.load();
  }

  /** The history of the fork at `point`, its answers written to the disk cache. */
  private historyOf(upstream: Upstream, point: ForkPoint): ForkHistory {
    return new ForkHistory(upstream, point.number, (q, r) => this.append([{ q, r }]), this.historyBytes);
  }

  /**
   * anvil_reset to another fork point (upstream or block): everything fetched for the old one is forgotten, here and
   * in the cache file. The local chain must have gone back to its first block already.
   */
  retarget(upstream: Upstream, point: ForkPoint): void {
    this.upstream = upstream;
    this.point = point;
    this.blockTag = '0x' + point.number.toString(16);
    this.history = this.historyOf(upstream, point);
    this.proofs = 'unknown';
    for (const m of [this.accounts, this.slots, this.blockHashes, this.codes, this.committedAccounts]) m.clear();
    this.committedSlots.clear();
    this.carrying = undefined;
    rmSync(this.cacheFile, { force: true });
    this.load();
  }

  /**
   * The upstream hash of block `n` below the fork (BLOCKHASH), or undefined after recording a miss (the run is
   * repeated once it is fetched).
   */
  blockHash(n: bigint): Uint8Array | undefined {
    const h = this.blockHashes.get(n);
    if (h === undefined) this.misses.blocks.add(n);
    return h;
  }

  /** The fetched account at local height `h`: undefined when the local trie answers (not fetched, or committed). */
  account(address: Address, h: bigint): ForkAccount | null | undefined {
    const acc = this.accounts.get(address);
    if (acc === undefined || acc === null) return acc;
    const at = this.committedAccounts.get(address);
    return at !== undefined && at <= h ? undefined : acc;
  }

  /** A fetched slot at local height `h`: undefined when not fetched or committed (the local trie answers). */
  slot(address: Address, slot: bigint, h: bigint): bigint | undefined {
    const v = this.slots.get(address)?.get(slot);
    // Zero upstream is what the local trie says of a slot it lacks: it answers (and sees later local writes).
    if (v === undefined || v === 0n) return undefined;
    const at = this.committedSlots.get(address)?.get(slot);
    return at !== undefined && at <= h ? undefined : v;
  }

  /** Code fetched with an account, by hash. */
  code(codeHash: Uint8Array): Uint8Array | undefined {
    return this.codes.get(bytesToHex(codeHash));
  }

  /**
   * Runs `attempt` until its reads miss nothing: each round fetches everything the run missed in one batch (so a
   * call touching 1,000 untouched accounts costs a few batched requests, not 1,000 round trips).
   */
  async resolve<T>(attempt: () => T): Promise<T> {
    for (let round = 0; ; round++) {
      this.misses = new Misses();
      let result: T | undefined;
      let failure: unknown;
      let failed = false;
      try {
        result = attempt();
      } catch (e) {
        failure = e;
        failed = true;
      }
      const missed = this.misses;
      this.misses = new Misses();
      if (missed.empty || round >= MAX_ROUNDS) {
        if (failed) throw failure;
        return result as T;
      }
      await this.fetch(missed);
    }
  }

  /**
   * Fetches the missed accounts, slots and block hashes at the fork block (one batch) and caches them on disk.
   * Accounts and slots come with EIP-1186 proofs checked against the fork block's stateRoot when the upstream
   * serves eth_getProof there; otherwise (it answers the first proof request with an error) with plain reads.
   */
  async fetch(m: Misses): Promise<void> {
    const accounts = new Set(m.accounts);
    for (const a of m.slots.keys()) if (!this.accounts.has(a)) accounts.add(a);
    const accList = [...accounts].filter((a) => !this.accounts.has(a));
    const slots = new Map<Address, bigint[]>();
    for (const [a, set] of m.slots) {
      const wanted = [...set].filter((s) => this.slots.get(a)?.get(s) === undefined);
      if (wanted.length > 0) slots.set(a, wanted);
    }
    const blockList = [...m.blocks].filter((n) => !this.blockHashes.has(n));
    if (accList.length === 0 && slots.size === 0 && blockList.length === 0) return;
    if (this.proofs !== 'no' && (accList.length > 0 || slots.size > 0)) {
      try {
        this.append(await this.fetchProven(accList, slots, blockList));
        this.proofs = 'yes';
        return;
      } catch (e) {
        // An upstream without eth_getProof (or without the fork block's trie) answers with an error: read plainly.
        if (!(e instanceof UpstreamError) || e.reason !== 'rpcError' || this.proofs === 'yes') throw e;
        this.proofs = 'no';
        console.warn(`fork: upstream does not prove state at the fork block (${e.message}); reading it unverified`);
      }
    }
    this.append(await this.fetchPlain(accList, slots, blockList));
  }

  /** The block-hash calls of a batch and, given their answers, the cache lines they make. */
  private blockLines(blockList: bigint[], answers: unknown[]): CacheLine[] {
    return blockList.map((n, i) => {
      const b = answers[i] as { hash?: unknown } | null;
      if (typeof b?.hash !== 'string') {
        throw new KestrelError(`fork upstream ${this.upstream.url} has no block ${n} below the fork block`);
      }
      return { block: n.toString(), hash: b.hash };
    });
  }

  private blockCalls(blockList: bigint[]): RpcCall[] {
    return blockList.map((n) => ({ method: 'eth_getBlockByNumber', params: ['0x' + n.toString(16), false] }));
  }

  /** Accounts and slots by eth_getProof (+ eth_getCode), each checked against the fork block's stateRoot. */
  private async fetchProven(accList: Address[], slots: Map<Address, bigint[]>, blockList: bigint[]) {
    const targets = [...new Set([...accList, ...slots.keys()])];
    const calls: RpcCall[] = targets.map((a) => ({
      method: 'eth_getProof',
      params: [addrHex(a), (slots.get(a) ?? []).map((s) => bigintToHex(s, 32)), this.blockTag],
    }));
    for (const a of accList) calls.push({ method: 'eth_getCode', params: [addrHex(a), this.blockTag] });
    calls.push(...this.blockCalls(blockList));
    const answers = await this.upstream.batch(calls);
    const lines: CacheLine[] = [];
    const url = this.upstream.url;
    targets.forEach((a, i) => {
      const proven = verifyProof(url, this.point.stateRoot, a, slots.get(a) ?? [], answers[i]);
      const codeAt = accList.indexOf(a);
      if (codeAt >= 0) {
        const c = answers[targets.length + codeAt];
        if (typeof c !== 'string') throw new KestrelError(`fork upstream ${url} sent a non-hex value`);
        const acc = proven.account;
        verifyCode(url, a, acc?.codeHash ?? EMPTY_CODE_HASH, hexToBytes(c));
        lines.push(
          acc === null
            ? { a: addrHex(a), e: true }
            : { a: addrHex(a), n: bigintToHex(acc.nonce), b: bigintToHex(acc.balance), c },
        );
      }
      for (const [s, v] of proven.slots) lines.push({ a: addrHex(a), s: bigintToHex(s), v: bigintToHex(v) });
    });
    lines.push(...this.blockLines(blockList, answers.slice(targets.length + accList.length)));
    for (const l of lines) this.apply(l);
    return lines;
  }

  /** Accounts and slots by eth_getBalance / eth_getTransactionCount / eth_getCode / eth_getStorageAt. */
  private async fetchPlain(accList: Address[], slots: Map<Address, bigint[]>, blockList: bigint[]) {
    const calls: RpcCall[] = [];
    for (const a of accList) {
      const h = addrHex(a);
      calls.push({ method: 'eth_getBalance', params: [h, this.blockTag] });
      calls.push({ method: 'eth_getTransactionCount', params: [h, this.blockTag] });
      calls.push({ method: 'eth_getCode', params: [h, this.blockTag] });
    }
    const slotList: Array<[Address, bigint]> = [];
    for (const [a, list] of slots) for (const s of list) slotList.push([a, s]);
    for (const [a, s] of slotList) {
      calls.push({ method: 'eth_getStorageAt', params: [addrHex(a), bigintToHex(s, 32), this.blockTag] });
    }
    calls.push(...this.blockCalls(blockList));
    const answers = await this.upstream.batch(calls);
    const firstBlock = answers.length - blockList.length;
    const out = answers.slice(0, firstBlock).map((r) => {
      if (typeof r !== 'string') throw new KestrelError(`fork upstream ${this.upstream.url} sent a non-hex value`);
      return r;
    });
    const lines: CacheLine[] = [];
    accList.forEach((a, i) => {
      const [b, n, c] = [out[3 * i]!, out[3 * i + 1]!, out[3 * i + 2]!];
      lines.push(
        BigInt(b) === 0n && BigInt(n) === 0n && c.length <= 2 ? { a: addrHex(a), e: true } : { a: addrHex(a), n, b, c },
      );
    });
    slotList.forEach(([a, s], i) => lines.push({ a: addrHex(a), s: bigintToHex(s), v: out[3 * accList.length + i]! }));
    lines.push(...this.blockLines(blockList, answers.slice(firstBlock)));
    for (const l of lines) this.apply(l);
    return lines;
  }

  /** The fetched values the next block must write (not yet committed), as state edits applied before its txs. */
  pendingEdits(): StateEdit[] {
    const accounts: Address[] = [];
    const slots: Array<[Address, bigint]> = [];
    const edits: StateEdit[] = [];
    for (const [a, acc] of this.accounts) {
      if (acc === null || this.committedAccounts.has(a)) continue;
      accounts.push(a);
      edits.push({ address: hexToBytes(addrHex(a)), nonce: acc.nonce, balance: acc.balance, code: acc.code });
    }
    for (const [a, words] of this.slots) {
      const storage: Array<[Uint8Array, Uint8Array]> = [];
      for (const [s, v] of words) {
        if (v === 0n || this.committedSlots.get(a)?.has(s) === true) continue;
        slots.push([a, s]);
        storage.push([hexToBytes(bigintToHex(s, 32)), hexToBytes(bigintToHex(v, 32))]);
      }
      if (storage.length > 0) edits.push({ address: hexToBytes(addrHex(a)), storage });
    }
    this.carrying = { accounts, slots };
    return edits;
  }

  /** The block that carried the last {@link pendingEdits} committed at `height`. */
  committed(height: bigint): void {
    if (this.carrying === undefined) return;
    const lines: CacheLine[] = [];
    for (const a of this.carrying.accounts) lines.push({ h: height.toString(), a: addrHex(a) });
    for (const [a, s] of this.carrying.slots) lines.push({ h: height.toString(), a: addrHex(a), s: bigintToHex(s) });
    for (const l of lines) this.apply(l);
    this.append(lines);
    this.carrying = undefined;
  }

  /** The chain went back to local height `keep` (evm_revert): values committed above it are pending again. */
  rewound(keep: bigint): void {
    const line: CacheLine = { rewound: keep.toString() };
    this.apply(line);
    this.append([line]);
  }

  /** The sealed block was abandoned: what it carried is pending again. */
  abandoned(): void {
    this.carrying = undefined;
  }

  private apply(line: CacheLine): void {
    if ('fork' in line) return;
    if ('q' in line) {
      this.history.remember(line.q, line.r);
      return;
    }
    if ('hash' in line) {
      this.blockHashes.set(BigInt(line.block), hexToBytes(line.hash));
      return;
    }
    if ('rewound' in line) {
      const keep = BigInt(line.rewound);
      for (const [a, h] of this.committedAccounts) if (h > keep) this.committedAccounts.delete(a);
      for (const m of this.committedSlots.values()) for (const [s, h] of m) if (h > keep) m.delete(s);
      return;
    }
    const a = BigInt(line.a);
    if ('h' in line) {
      const h = BigInt(line.h);
      if (line.s === undefined) this.committedAccounts.set(a, h);
      else {
        let m = this.committedSlots.get(a);
        if (m === undefined) this.committedSlots.set(a, (m = new Map()));
        m.set(BigInt(line.s), h);
      }
    } else if ('e' in line) this.accounts.set(a, null);
    else if ('s' in line) {
      let m = this.slots.get(a);
      if (m === undefined) this.slots.set(a, (m = new Map()));
      m.set(BigInt(line.s), BigInt(line.v));
    } else {
      const code = hexToBytes(line.c);
      const codeHash = code.length === 0 ? EMPTY_CODE_HASH : keccak256(code);
      this.codes.set(bytesToHex(codeHash), code);
      this.accounts.set(a, { nonce: BigInt(line.n), balance: BigInt(line.b), code, codeHash });
    }
  }

  private load(): void {
    const header: CacheLine = {
      fork: { url: this.upstream.url, block: this.blockTag, point: forkPointToJson(this.point) },
    };
    if (existsSync(this.cacheFile)) {
      const lines = readFileSync(this.cacheFile, 'utf8').split('\n').filter(Boolean);
      const first = lines[0] ? (JSON.parse(lines[0]) as CacheLine) : undefined;
      // A cache of another upstream or block would answer wrongly: it is only reused for the same fork.
      if (first && 'fork' in first && first.fork.url === this.upstream.url && first.fork.block === this.blockTag) {
        for (const l of lines.slice(1)) this.apply(JSON.parse(l) as CacheLine);
        return;
      }
    }
    writeFileSync(this.cacheFile, JSON.stringify(header) + '\n');
  }

  private append(lines: CacheLine[]): void {
    if (lines.length > 0) appendFileSync(this.cacheFile, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  }
}
