// Kestrel as an ABCI 2.0 application: maps CometBFT's requests onto KestrelApp. Everything a validator computes
// for a block is a function of the block (its txs, BFT time, proposer) and the committed state — never of
// node-local settings — so every validator seals the same Ethereum header and returns the same app hash.
// Only Commit persists; after a crash before it, Info reports the previous height and CometBFT replays the block.
import { createHash } from 'node:crypto';
import {
  ResponseApplySnapshotChunk_Result,
  ResponseOfferSnapshot_Result,
  ResponseProcessProposal_ProposalStatus,
  type RequestApplySnapshotChunk,
  type RequestLoadSnapshotChunk,
  type RequestOfferSnapshot,
  type ResponseApplySnapshotChunk,
  type ResponseListSnapshots,
  type ResponseLoadSnapshotChunk,
  type ResponseOfferSnapshot,
  type Snapshot,
  type RequestCheckTx,
  type RequestFinalizeBlock,
  type RequestInitChain,
  type RequestPrepareProposal,
  type RequestProcessProposal,
  type RequestQuery,
  type ResponseCheckTx,
  type ResponseFinalizeBlock,
  type ResponseInfo,
  type ResponseInitChain,
  type ResponsePrepareProposal,
  type ResponseProcessProposal,
  type ResponseQuery,
  type Request,
} from 'cosmjs-types/tendermint/abci/types';
import type { AbciApplication } from '../../abci/server.ts';
import type { ExecTx } from '../../app/evm/executor.ts';
import { BlockIDFlag } from 'cosmjs-types/tendermint/types/validator';
import type { ConsensusInfo } from '../../app/staking/modules.ts';
import type { CheckedTx, CommittedBlock, FinalizeResult, KestrelApp } from '../../app/app.ts';
import type { BlockRecord } from '../../store/records.ts';
import type { GenesisDoc } from '../../app/genesis.ts';
import { MAX_TX_BYTES, type RecoveryJob } from '../../app/evm/validate.ts';
import { blockSizeBudget } from '../../app/blockSize.ts';
import { abciCode } from '../../abci/codes.ts';
import { KestrelError } from '../../errors/index.ts';
import { CheckState } from './checkState.ts';
import { DecodeCache } from './decodeCache.ts';
import { execTxResults, type BlockTx } from './txResults.ts';
import { bareHex } from '../../primitives/hex.ts';
import { encodeTx } from '../../primitives/tx/encode.ts';
import { errorText } from '../../log/logger.ts';

/** Goes into every CometBFT block header (Header.Version.App); bump only with a coordinated upgrade. */
export const APP_VERSION = 1n;

/** What the adapter needs besides the app. */
export interface CometAppOptions {
  app: KestrelApp;
  /** The app hash after a block: commits to the EVM state root and the bank state. */
  appHash(block: BlockRecord): Uint8Array;
  /** The node's genesis.json: its chain id and app_state must match CometBFT's genesis. */
  genesisDoc: GenesisDoc;
  version: string;
  /** A tx passed CheckTx (NEW): the node's txpool view learns about it (its own and its peers' txs). */
  onChecked?(tx: CheckedTx): void;
  /** A block was committed, with the txs execution could not include (after the state is persisted). */
  onCommitted?(c: CommittedBlock, rejected: FinalizeResult['rejected']): void;
  /** Snapshots this node serves to peers that state-sync (absent: none); snapshots/store.ts. */
  snapshots?: { list(): Snapshot[]; chunk(height: bigint, format: number, index: number): Uint8Array };
  /** Restores an offered snapshot when this node state-syncs (absent: offers are refused); snapshots/restore.ts. */
  restore?: {
    offer(req: RequestOfferSnapshot): ResponseOfferSnapshot;
    apply(req: RequestApplySnapshotChunk): Promise<ResponseApplySnapshotChunk>;
  };
  /** Fee recipient per proposer consensus address (upper-case hex), from genesis: the same on every validator. */
  feeRecipients?: ReadonlyMap<string, Uint8Array>;
  log?(line: string): void;
  /** Bytes the decoded-tx cache may hold (the [cache] budget's share; its default otherwise). */
  decodeCacheBytes?: number;
  /**
   * Recovers senders off the main thread (the node's recovery workers): a proposal's txs and the CheckTx requests
   * of one socket read go as one batch. Absent: every sender is recovered inline, as decode() does.
   */
  recover?(job: RecoveryJob): Promise<Uint8Array>;
}

/** CometBFT's address of an ed25519 or secp256k1 validator key: the first 20 bytes of its SHA-256. */
export function consensusAddress(pubKey: Uint8Array): string {
  return createHash('sha256').update(pubKey).digest().subarray(0, 20).toString('hex').toUpperCase();
}

/** Bytes a tx takes in a block's Data protobuf (field tag, length prefix, bytes), as CometBFT counts max_tx_bytes. */
function protoTxBytes(tx: Uint8Array): number {
  let n = tx.length;
  let prefix = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    prefix++;
  }
  return 1 + prefix + tx.length;
}

/** Canonical JSON (sorted keys) for comparing genesis app states. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(
          Object.entries(x as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : x,
  );
}

/** What the app needs of a FinalizeBlock request for the modules: the last commit's votes and the evidence. */
export function consensusInfo(req: RequestFinalizeBlock, parentTime: bigint): ConsensusInfo {
  const votes = (req.decidedLastCommit?.votes ?? []).flatMap((v) =>
    v.validator === undefined
      ? []
      : [
          {
            consAddress: v.validator.address,
            power: v.validator.power,
            signed: v.blockIdFlag !== BlockIDFlag.BLOCK_ID_FLAG_ABSENT,
          },
        ],
  );
  const misbehavior = req.misbehavior.flatMap((m) =>
    m.validator === undefined ? [] : [{ consAddress: m.validator.address, height: m.height, power: m.validator.power }],
  );
  const time = req.time?.seconds ?? 0n;
  return { votes, misbehavior, elapsed: time > parentTime ? time - parentTime : 0n };
}

/** The ABCI application. */
export class CometApplication implements AbciApplication {
  private readonly decoded: DecodeCache;
  private readonly checkState: CheckState;
  private pendingRejected: FinalizeResult['rejected'] = [];
  private readonly log: (line: string) => void;
  /** Proposers already warned about (no fee recipient in genesis): one warning each, not one per block. */
  private readonly unmapped = new Set<string>();

  /** Estimated bytes of the decoded-tx cache. */
  get decodeCacheBytes(): number {
    return this.decoded.bytes;
  }

  constructor(private readonly opts: CometAppOptions) {
    const { app, recover } = opts;
    this.decoded = new DecodeCache(
      (raw) => app.decode(raw),
      undefined,
      opts.decodeCacheBytes,
      recover && {
        prepare: (raw) => app.prepare(raw),
        recover,
        recovered: (u, pub) => app.recovered(u, pub),
      },
    );
    this.checkState = new CheckState(opts.app, this.decoded);
    this.log = opts.log ?? ((l) => console.log(l));
  }

  /**
   * A request read off the socket, before its turn: a CheckTx's sender recovery starts at once, so the CheckTx
   * requests of one read are recovered as one batch on the workers while the earlier ones are answered.
   */
  received(req: Request): void {
    if (req.checkTx) void this.decoded.warm([req.checkTx.tx]);
  }

  /** A tx this node decoded from its own submit path (the bytes it broadcasts): CheckTx will not decode it again. */
  seed(tx: ExecTx): void {
    this.decoded.seed(tx);
  }

  /** The next nonce CometBFT's mempool expects from a sender (undefined: no tx of it is pending). */
  pendingNonce(sender: Uint8Array): bigint | undefined {
    return this.checkState.pendingNonce(sender);
  }

  /** Info: the last height whose Commit completed, and its app hash (CometBFT replays from there). */
  info(): ResponseInfo {
    const head = this.opts.app.head;
    return {
      data: 'kestrel',
      version: this.opts.version,
      appVersion: APP_VERSION,
      lastBlockHeight: head.number,
      lastBlockAppHash: this.opts.appHash(head),
    };
  }

  /** InitChain: the genesis state is Kestrel's genesis.json (block 0); CometBFT's genesis must describe the same chain. */
  initChain(req: RequestInitChain): ResponseInitChain {
    const { app, genesisDoc } = this.opts;
    if (req.chainId !== genesisDoc.chain_id) {
      throw new KestrelError(
        `CometBFT genesis chain_id "${req.chainId}" differs from Kestrel's genesis chain_id "${genesisDoc.chain_id}"`,
      );
    }
    if (req.initialHeight > 1n)
      throw new KestrelError(`initial_height ${req.initialHeight} is not supported: Kestrel chains start at height 1`);
    if (app.head.number !== 0n) {
      throw new KestrelError(
        `InitChain at app height ${app.head.number}: CometBFT's data was reset but Kestrel's was not; reset both together`,
      );
    }
    const text = Buffer.from(req.appStateBytes).toString('utf8').trim();
    if (text !== '' && text !== 'null' && text !== '{}') {
      let given: unknown;
      try {
        given = JSON.parse(text);
      } catch (e) {
        throw new KestrelError(`CometBFT genesis app_state is not JSON: ${(e as Error).message}`);
      }
      if (canonical(given) !== canonical(genesisDoc.app_state)) {
        throw new KestrelError(
          "CometBFT genesis app_state differs from Kestrel's genesis.json app_state (copy it over, or leave it empty)",
        );
      }
    }
    for (const v of req.validators) {
      const key = v.pubKey?.ed25519 ?? v.pubKey?.secp256k1;
      if (key) this.coinbaseOf(Buffer.from(consensusAddress(key), 'hex'));
    }
    // A chain with staking genesis validators answers with their set (CometBFT's genesis must list the same keys);
    // without them CometBFT's genesis validator set stands, as before the staking module.
    const validators = app.genesisValidatorSet().map((u) => ({ pubKey: { ed25519: u.consPubkey }, power: u.power }));
    return { validators, appHash: this.opts.appHash(app.head) };
  }

  /** Query: the same handlers as gRPC and the solo node's abci_query. */
  async query(req: RequestQuery): Promise<ResponseQuery> {
    const base = { index: 0n, key: req.data, info: '', proofOps: undefined };
    const height = req.height === 0n ? this.opts.app.head.number : req.height;
    try {
      const value = await this.opts.app.query(req.path, req.data, height);
      return { ...base, code: 0, log: '', codespace: '', value, height };
    } catch (e) {
      const { code, codespace, log } = abciCode(e);
      if (code === 1) this.log(`abci query ${req.path} failed: ${errorText(e)}`);
      return { ...base, code, codespace, log, value: new Uint8Array(0), height };
    }
  }

  /** CheckTx (NEW and RECHECK) against the check state. */
  async checkTx(req: RequestCheckTx): Promise<ResponseCheckTx> {
    const none = { data: new Uint8Array(0), info: '', gasUsed: 0n, events: [] };
    try {
      const item = await this.checkState.check(req.tx);
      if (req.type !== 1) this.opts.onChecked?.(item);
      return { ...none, code: 0, log: '', codespace: '', gasWanted: item.tx.gasLimit };
    } catch (e) {
      const { code, codespace, log } = abciCode(e);
      if (code === 1) this.log(`abci CheckTx failed: ${errorText(e)}`);
      return { ...none, code, codespace, log, gasWanted: 0n };
    }
  }

  /**
   * PrepareProposal (proposer only): the mempool's txs in order, within max_tx_bytes, the block gas limit and (from
   * Osaka) EIP-7934's block size cap, without undecodable ones. A sender's txs after one left out stay out too (its
   * nonces would gap); past the size cap nothing more goes in, as block execution would include none of it.
   */
  prepareProposal(req: RequestPrepareProposal): ResponsePrepareProposal {
    const gasLimit = this.opts.app.head.header.gasLimit;
    const size = blockSizeBudget(this.opts.app.fork);
    const skipped = new Set<string>();
    const txs: Uint8Array[] = [];
    let bytes = 0;
    let gas = 0n;
    for (const raw of req.txs) {
      const protoSize = protoTxBytes(raw);
      if (bytes + protoSize > Number(req.maxTxBytes)) break;
      let item;
      try {
        item = this.decoded.get(raw);
      } catch {
        continue;
      }
      const sender = bareHex(item.sender);
      if (skipped.has(sender)) continue;
      if (gas + item.tx.gasLimit > gasLimit) {
        skipped.add(sender);
        continue;
      }
      const encoded = item.encoded ?? encodeTx(item.tx);
      if (!size.fits(encoded)) break;
      size.add(encoded);
      txs.push(raw);
      bytes += protoSize;
      gas += item.tx.gasLimit;
    }
    return { txs };
  }

  /** ProcessProposal: deterministic; rejects only malformed blocks (undecodable or oversized txs). */
  async processProposal(req: RequestProcessProposal): Promise<ResponseProcessProposal> {
    await this.decoded.warm(req.txs);
    for (const raw of req.txs) {
      try {
        if (raw.length > MAX_TX_BYTES) throw new Error('oversized');
        this.decoded.get(raw);
      } catch {
        return { status: ResponseProcessProposal_ProposalStatus.REJECT };
      }
    }
    return { status: ResponseProcessProposal_ProposalStatus.ACCEPT };
  }

  /** FinalizeBlock: executes with the block's BFT time and its proposer as coinbase; persists nothing. */
  async finalizeBlock(req: RequestFinalizeBlock): Promise<ResponseFinalizeBlock> {
    const { app } = this.opts;
    if (req.height !== app.head.number + 1n) {
      throw new KestrelError(
        `FinalizeBlock for height ${req.height}, but the app's next height is ${app.head.number + 1n}`,
      );
    }
    // A block finalized but never committed: CometBFT restarted in between and is replaying this height.
    if (await app.discardSealed())
      this.log(`abci: discarded the uncommitted block ${req.height} (CometBFT is replaying it)`);
    await this.decoded.warm(req.txs);
    const txs: BlockTx[] = req.txs.map((raw) => {
      try {
        return { item: this.decoded.get(raw) };
      } catch (e) {
        return { error: e as Error };
      }
    });
    const coinbase = this.coinbaseOf(req.proposerAddress);
    const res = await app.finalizeBlock({
      txs: txs.flatMap((t) => ('item' in t ? [t.item] : [])),
      time: req.time?.seconds ?? 0n,
      coinbase,
      sameSecond: true,
      consensus: consensusInfo(req, app.head.header.timestamp),
    });
    this.pendingRejected = res.rejected;
    return {
      events: [],
      txResults: execTxResults(txs, res),
      validatorUpdates: res.validatorUpdates.map((u) => ({ pubKey: { ed25519: u.consPubkey }, power: u.power })),
      consensusParamUpdates: undefined,
      appHash: this.opts.appHash(res.block),
    };
  }

  /** ListSnapshots: the snapshots on disk, newest first. */
  listSnapshots(): ResponseListSnapshots {
    return { snapshots: this.opts.snapshots?.list() ?? [] };
  }

  /** LoadSnapshotChunk: one chunk of a snapshot on disk (empty when unknown). */
  loadSnapshotChunk(req: RequestLoadSnapshotChunk): ResponseLoadSnapshotChunk {
    return { chunk: this.opts.snapshots?.chunk(req.height, req.format, req.chunk) ?? new Uint8Array(0) };
  }

  /** OfferSnapshot: accepted into an empty app when restoring is configured. */
  offerSnapshot(req: RequestOfferSnapshot): ResponseOfferSnapshot {
    if (!this.opts.restore) return { result: ResponseOfferSnapshot_Result.ABORT };
    return this.opts.restore.offer(req);
  }

  /** ApplySnapshotChunk: verified and applied in order; the last chunk moves the app to the snapshot height. */
  async applySnapshotChunk(req: RequestApplySnapshotChunk): Promise<ResponseApplySnapshotChunk> {
    if (!this.opts.restore)
      return { result: ResponseApplySnapshotChunk_Result.ABORT, refetchChunks: [], rejectSenders: [] };
    const res = await this.opts.restore.apply(req);
    if (res.result === ResponseApplySnapshotChunk_Result.ACCEPT) this.checkState.reset();
    return res;
  }

  /**
   * Who receives a block's fees: the proposer's fee recipient from genesis, else (as before the mapping existed)
   * its raw 20-byte consensus address, whose key nobody holds — with one warning per such validator.
   */
  private coinbaseOf(proposer: Uint8Array): Uint8Array {
    if (proposer.length !== 20) return new Uint8Array(20);
    const hex = Buffer.from(proposer).toString('hex').toUpperCase();
    const recipient = this.opts.feeRecipients?.get(hex);
    if (recipient) return recipient;
    if (!this.unmapped.has(hex)) {
      this.unmapped.add(hex);
      this.log(
        `warning: validator ${hex} has no fee recipient in genesis app_state.fee_recipients: the fees of its blocks go to its consensus address, whose key nobody holds`,
      );
    }
    return proposer;
  }

  /** Commit: persists the finalized block in one batch, then resets the check state for CometBFT's rechecks. */
  async commit(): Promise<{ retainHeight: bigint }> {
    const committed = await this.opts.app.commit();
    const rejected = this.pendingRejected;
    this.pendingRejected = [];
    this.checkState.reset();
    this.decoded.forget(committed.block.txHashes);
    this.opts.onCommitted?.(committed, rejected);
    // Keep every block: a validator whose app data is wiped replays the chain from CometBFT's block store.
    return { retainHeight: 0n };
  }
}
