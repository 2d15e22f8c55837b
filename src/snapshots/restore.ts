// Restoring a snapshot (OfferSnapshot / ApplySnapshotChunk) on a node that joins by state sync. Every chunk is
// checked against the hash the snapshot's metadata lists, every trie entry against its own hash (entries are
// content-addressed, so they are written as they arrive); after the last chunk the state must be complete, the
// blocks must chain by parent hash up to the snapshot height with that state root, and keccak(stateRoot ‖ bank
// root) must equal the app hash CometBFT's light client verified. Only then are the blocks written and the app
// moved to the snapshot height.
import { rlpDecode } from '../primitives/rlp.ts';
import {
  ResponseApplySnapshotChunk_Result as ApplyResult,
  ResponseOfferSnapshot_Result as OfferResult,
  type RequestApplySnapshotChunk,
  type RequestOfferSnapshot,
  type ResponseApplySnapshotChunk,
  type ResponseOfferSnapshot,
} from 'cosmjs-types/tendermint/abci/types';
import { earliestStateOp } from '../app/state/pruner.ts';
import { keccak256 } from '../primitives/keccak.ts';
import { CODE_PREFIX, walkState } from '../app/state/walk.ts';
import { HISTORY_EARLIEST } from '../store/chainStore.ts';
import type { KvOp, KvStore } from '../store/kv.ts';
import { blockKey, canonKey, hashKey, metaKey, receiptsKey, trieKey, txKey } from '../store/schema.ts';
import { chunkHashes, decodeChunk, KIND_BLOCK, KIND_HEAD, SNAPSHOT_FORMAT, sha256 } from './format.ts';

/** What the restore needs from the node. */
export interface RestoreDeps {
  kv: KvStore;
  /** The node's current height (a snapshot is only restored into an empty app, at height 0). */
  height(): bigint;
  /** keccak(stateRoot ‖ bank root): the app hash a block with this state root has. */
  appHashOf(stateRoot: Uint8Array): Uint8Array;
  /** Called once the snapshot is written: reload the app at its height. */
  restored(height: bigint): Promise<void>;
  log(line: string): void;
}

interface Session {
  height: bigint;
  appHash: Uint8Array;
  hashes: Uint8Array[];
  next: number;
  stateRoot?: Uint8Array;
  blocks: Array<{ block: Uint8Array; receipts: Uint8Array }>;
  entries: number;
  started: number;
  /**
   * The entries received so far, for the completeness walk at the end (reading them back from the store costs a
   * LevelDB get and a key copy each, a third of a restore); dropped past MEMO_BYTES, when the walk reads the store.
   */
  memo?: Map<string, Uint8Array>;
  memoBytes: number;
}

/** Most entry bytes a restore keeps in memory for its final walk. */
const MEMO_BYTES = 256 * 1024 * 1024;

const idOf = (key: Uint8Array) => Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');

function u64(n: bigint): Uint8Array {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(n);
  return b;
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

function bigOf(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt('0x' + Buffer.from(b).toString('hex'));
}

const HEAD = metaKey('head');

/** One node's restore, driven by CometBFT's state-sync requests. */
export class SnapshotRestore {
  private session?: Session;

  constructor(private readonly deps: RestoreDeps) {}

  /** OfferSnapshot: accepts a format-1 snapshot with well-formed metadata into an empty app. */
  offer(req: RequestOfferSnapshot): ResponseOfferSnapshot {
    const s = req.snapshot;
    if (!s) return { result: OfferResult.REJECT };
    if (s.format !== SNAPSHOT_FORMAT) return { result: OfferResult.REJECT_FORMAT };
    if (this.deps.height() !== 0n) {
      this.deps.log(
        `statesync: refusing snapshot ${s.height}: this app already holds blocks (height ${this.deps.height()})`,
      );
      return { result: OfferResult.ABORT };
    }
    let hashes: Uint8Array[];
    try {
      hashes = chunkHashes(s.metadata, s.chunks);
    } catch {
      return { result: OfferResult.REJECT };
    }
    if (!same(sha256(s.metadata), s.hash)) return { result: OfferResult.REJECT };
    this.session = {
      height: s.height,
      appHash: req.appHash,
      hashes,
      next: 0,
      blocks: [],
      entries: 0,
      started: performance.now(),
      memo: new Map(),
      memoBytes: 0,
    };
    this.deps.log(`statesync: restoring snapshot of height ${s.height} (${s.chunks} chunk(s))`);
    return { result: OfferResult.ACCEPT };
  }

  /** ApplySnapshotChunk: verifies and applies chunks in order; the last one completes the restore. */
  async apply(req: RequestApplySnapshotChunk): Promise<ResponseApplySnapshotChunk> {
    const s = this.session;
    const reply = (result: ApplyResult, refetch: number[] = [], reject: string[] = []) => ({
      result,
      refetchChunks: refetch,
      rejectSenders: reject,
    });
    if (!s) return reply(ApplyResult.ABORT);
    if (req.index !== s.next) return reply(ApplyResult.RETRY, [s.next]);
    if (!same(sha256(req.chunk), s.hashes[req.index]!)) return reply(ApplyResult.RETRY, [req.index], [req.sender]);
    try {
      const ops: KvOp[] = [];
      for (const r of decodeChunk(req.chunk)) {
        if (r.kind === KIND_HEAD) {
          if (req.index !== 0 || r.height !== s.height)
            throw new Error('head record out of place or at another height');
          s.stateRoot = r.stateRoot;
        } else if (r.kind === KIND_BLOCK) {
          s.blocks.push({ block: r.block, receipts: r.receipts });
        } else {
          const isCode = r.key.length === 33 && r.key[0] === CODE_PREFIX;
          const hash = isCode ? r.key.subarray(1) : r.key;
          if ((!isCode && r.key.length !== 32) || !same(keccak256(r.value), hash))
            throw new Error('trie entry does not match its hash');
          ops.push({ type: 'put', key: trieKey(r.key), value: r.value });
          s.entries++;
          if (s.memo) {
            s.memo.set(idOf(r.key), r.value);
            s.memoBytes += r.key.length + r.value.length;
            if (s.memoBytes > MEMO_BYTES) s.memo = undefined;
          }
        }
      }
      await this.deps.kv.write(ops);
    } catch (e) {
      this.deps.log(
        `statesync: chunk ${req.index} of snapshot ${s.height} from ${req.sender} is invalid: ${(e as Error).message}`,
      );
      this.session = undefined;
      return reply(ApplyResult.REJECT_SNAPSHOT, [], [req.sender]);
    }
    s.next++;
    if (s.next < s.hashes.length) return reply(ApplyResult.ACCEPT);
    try {
      await this.complete(s);
    } catch (e) {
      this.deps.log(`statesync: snapshot ${s.height} rejected: ${(e as Error).message}`);
      this.session = undefined;
      return reply(ApplyResult.REJECT_SNAPSHOT);
    }
    this.session = undefined;
    return reply(ApplyResult.ACCEPT);
  }

  /** Checks the restored state and blocks, writes the blocks and moves the app to the snapshot height. */
  private async complete(s: Session): Promise<void> {
    if (!s.stateRoot) throw new Error('no head record');
    // Every node reachable from the root must have arrived.
    const memo = s.memo;
    walkState(s.stateRoot, memo ? (k) => memo.get(idOf(k)) : (k) => this.deps.kv.get(trieKey(k)), () => true);
    s.memo = undefined;
    if (!same(this.deps.appHashOf(s.stateRoot), s.appHash))
      throw new Error('app hash differs from the one CometBFT trusts');
    const ops: KvOp[] = [];
    let parent: Uint8Array | undefined;
    let expected = s.height - BigInt(s.blocks.length) + 1n;
    for (const [i, b] of s.blocks.entries()) {
      const [headerRlp, txs] = rlpDecode(b.block) as unknown as [Uint8Array, Uint8Array[]];
      const fields = rlpDecode(headerRlp) as unknown as Uint8Array[];
      const number = bigOf(fields[8]!);
      if (number !== expected) throw new Error(`block ${number} where ${expected} was expected`);
      const hash = keccak256(headerRlp);
      if (parent && !same(fields[0]!, parent)) throw new Error(`block ${number} does not extend block ${number - 1n}`);
      if (i === s.blocks.length - 1 && !same(fields[3]!, s.stateRoot))
        throw new Error('the head block has another state root');
      ops.push(
        { type: 'put', key: blockKey(number), value: b.block },
        { type: 'put', key: receiptsKey(number), value: b.receipts },
        { type: 'put', key: canonKey(number), value: hash },
        { type: 'put', key: hashKey(hash), value: u64(number) },
      );
      txs.forEach((tx, index) => {
        const loc = new Uint8Array(12);
        loc.set(u64(number), 0);
        new DataView(loc.buffer).setUint32(8, index);
        ops.push({ type: 'put', key: txKey(keccak256(tx)), value: loc });
      });
      parent = hash;
      expected++;
    }
    if (expected !== s.height + 1n) throw new Error('the snapshot does not end at its height');
    const firstBlock = s.height - BigInt(s.blocks.length) + 1n;
    ops.push(
      { type: 'put', key: HEAD, value: u64(s.height) },
      { type: 'put', key: HISTORY_EARLIEST, value: u64(firstBlock) },
      earliestStateOp(s.height),
    );
    await this.deps.kv.write(ops);
    await this.deps.restored(s.height);
    this.deps.log(
      `statesync: restored height ${s.height}: ${s.entries} state entries, ${s.blocks.length} blocks, in ${(performance.now() - s.started).toFixed(0)} ms`,
    );
  }
}
