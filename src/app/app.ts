// The deterministic state machine, ABCI-shaped: checkTx, finalizeBlock, commit, query. It never knows who drives
// it; the solo engine and (later) the ABCI server call the same methods.
import type { Common } from '@ethereumjs/common';
import { type Fork, forkRules, initEngine, initEngineForSystemCalls, WorldState } from '../evm/index.ts';
import { initKeccak } from '../primitives/keccak.ts';
import { EMPTY_TRIE_ROOT } from '../primitives/hash.ts';
import { bytesToBigint } from '../primitives/hex.ts';
import { InvalidParamsError, KestrelError, NotFoundError } from '../errors/index.ts';
import type { ChainStore } from '../store/chainStore.ts';
import { faultPoint } from '../store/faults.ts';
import type { KvOp, KvStore } from '../store/kv.ts';
import type { BufferedTrieDb } from '../store/trieDb.ts';
import type { BlockRecord, ReceiptRecord } from '../store/records.ts';
import { ArchiveStateReader, READER_ENTRY_BYTES, type CarriedTries } from './evm/archiveReader.ts';
import { chainFork } from './evm/common.ts';
import type { ExecTx, Rejection } from './evm/executor.ts';
import {
  checkAgainstState,
  decodeTx,
  prepareTx,
  recoveredTx,
  type AccountState,
  type AdmissionRules,
  type UnrecoveredTx,
} from './evm/validate.ts';
import type { QueryModule } from './bank/query.ts';
import type { Genesis } from './genesis.ts';
import type { StateDb } from './state/stateDb.ts';
import { writeState } from './evm/stateWrite.ts';
import { headChangesOf } from './evm/headChanges.ts';
import type { HeadChange } from './state/headCache.ts';
import { editsDiff, type StateEdit } from './stateEdits.ts';
import { forkReader } from './fork/forkReader.ts';
import { BlockBuilder } from './blockBuilder.ts';
import type { ForkState } from './fork/forkState.ts';
import { fetchForkPoint } from './fork/openFork.ts';
import { Upstream } from './fork/upstream.ts';
import { configureChainModules } from './staking/chain.ts';
import { initModulesGenesis } from './staking/blockHooks.ts';
import { Modules, type ConsensusInfo } from './staking/modules.ts';
import { scratchState } from './staking/views.ts';
import type { ValidatorUpdate } from './staking/staking.ts';

/** A transaction that passed CheckTx, with its sender's nonce in the state it was checked against. */
export interface CheckedTx extends ExecTx {
  stateNonce: bigint;
}

/** A block and its receipts once committed. */
export interface CommittedBlock {
  block: BlockRecord;
  receipts: ReceiptRecord[];
  /**
   * Every account the block changed (dev-toolkit edits first, then its transactions'), as the head-state cache
   * takes them (ChainQuery.applyHeadChanges); absent when they are not known.
   */
  stateChanges?: readonly HeadChange[];
}

/** The result of FinalizeBlock: the sealed (not yet committed) block and the txs that could not be included. */
export interface FinalizeResult extends CommittedBlock {
  rejected: Rejection[];
  /** Validator-set changes for consensus (the staking module's end of block). */
  validatorUpdates: ValidatorUpdate[];
}

/** Everything the app is built from. */
export interface AppDeps {
  kv: KvStore;
  chain: ChainStore;
  state: StateDb;
  /** Shared, copy-free Common for txs and headers (see createSharedCommon). */
  common: Common;
  genesis: Genesis;
  evmChainId: bigint;
  minGasPrice: bigint;
  etherbase: Uint8Array;
  /** Awaited after each commit, before the next block can start (state pruning). */
  afterCommit?: (c: CommittedBlock) => Promise<unknown>;
  /** Modules answering query() paths under their prefix (the bank's /cosmos.bank.v1beta1.Query/…). */
  queryModules?: QueryModule[];
  /** --fork-url: the upstream state behind the local trie (fetched on first use, committed by the next block). */
  fork?: ForkState;
  /** Bytes the tries and values a block hands to the next may hold (the [cache] budget's share); a default otherwise. */
  blockStateBytes?: number;
}

/** The Kestrel application state machine. */
export class KestrelApp {
  private headBlock!: BlockRecord;
  private headDb!: BufferedTrieDb;
  /**
   * The block between FinalizeBlock and Commit, with its txs' canonical encodings (computed once for both) and
   * its state changes for the head cache (built at commit: an abandoned block never needs them).
   */
  private sealed?: FinalizeResult & {
    encodedTxs: Uint8Array[];
    headChanges?: () => HeadChange[];
    carry?: CarriedTries;
  };
  /** The head's state tries as the last committed block's execution decoded and wrote them (see execute). */
  private carried?: CarriedTries;
  private readonly commitListeners: Array<(c: CommittedBlock) => void> = [];
  private readonly indexers: Array<(c: CommittedBlock) => KvOp[]> = [];
  private readonly rewinders: Array<(keep: bigint, head: bigint) => KvOp[]> = [];
  private readonly rebasers: Array<(first: bigint) => KvOp[]> = [];
  private readonly rewindListeners: Array<(keep: bigint, forgotten: BlockRecord[]) => void> = [];
  /** How long the last Commit took to build and write its batch (metrics). */
  lastCommitSeconds = 0;
  /** Coinbase for the next blocks (miner_setEtherbase changes it). */
  etherbase: Uint8Array;
  minGasPrice: bigint;

  /** The fork the chain's genesis names (its Common carries it). */
  readonly fork: Fork;
  /** Builds the blocks (context, execution, edits, sealing) over this chain's state. */
  private readonly builder: BlockBuilder;

  private constructor(private readonly deps: AppDeps) {
    this.etherbase = deps.etherbase;
    this.minGasPrice = deps.minGasPrice;
    this.fork = chainFork(deps.common);
    this.builder = new BlockBuilder(deps, this.fork);
  }

  /** Opens the app on its store, writing genesis block 0 on first start. */
  static async open(deps: AppDeps): Promise<KestrelApp> {
    const g = deps.genesis;
    configureChainModules({
      params: g.modules.params,
      prefix: g.prefix,
      genesisSupply: g.alloc.reduce((n, a) => n + a.balance, 0n),
    });
    const app = new KestrelApp(deps);
    await app.init();
    return app;
  }

  private async init(): Promise<void> {
    const { chain, state, genesis } = this.deps;
    const headNumber = chain.headNumber();
    this.headDb = state.bufferedDb();
    if (headNumber === undefined) {
      // The allocation is an edit of the empty state, written by the blocks' state writer.
      await initKeccak();
      const db = this.headDb;
      const readNode = (key: Uint8Array): Uint8Array | undefined => db.getSync(key);
      const empty = new ArchiveStateReader(EMPTY_TRIE_ROOT, readNode, () => undefined);
      const alloc = editsDiff(empty, [...genesis.alloc, ...genesis.accounts]);
      let stateRoot = writeState(EMPTY_TRIE_ROOT, alloc, readNode, (k, v) => db.putSync(k, v));
      if (genesis.modules.validators.length > 0) {
        const world = new WorldState(new ArchiveStateReader(stateRoot, readNode, () => undefined));
        initModulesGenesis(world, genesis.modules, genesis.time);
        stateRoot = writeState(stateRoot, world.diff(), readNode, (k, v) => db.putSync(k, v));
      }
      const point = this.deps.fork?.point;
      const block = await this.builder.firstBlock(stateRoot, point);
      const forkOps = point ? chain.forkPointOps(point.number, point.hash) : [];
      await this.deps.kv.write([...this.headDb.drain(), ...chain.blockOps(block, []), ...forkOps]);
      if (point) chain.forkPoint = { number: point.number, hash: point.hash };
      chain.remember(block, []);
      this.headBlock = block;
    } else {
      const head = chain.blockByNumber(headNumber);
      if (!head) throw new KestrelError(`store corrupt: head block ${headNumber} missing`);
      this.headBlock = head;
    }
  }

  /**
   * anvil_reset / hardhat_reset: the chain goes back to its first block (genesis, or the fork block); with `refork`,
   * a forked chain then starts over from another upstream block (`url`, default the current upstream; `blockNumber`,
   * default its latest), the state fetched for the old one forgotten. Only while no block is being produced.
   */
  async reset(refork?: { url?: string; blockNumber?: bigint }): Promise<void> {
    const fork = this.deps.fork;
    if (refork !== undefined && fork === undefined) {
      throw new InvalidParamsError('forking reset needs a node started with --fork-url');
    }
    const chain = this.deps.chain;
    const first = chain.forkPoint?.number ?? 0n;
    // The new fork point first: a dead upstream leaves the chain as it was.
    const upstream = refork === undefined ? undefined : new Upstream(refork.url ?? fork!.upstream.url);
    const point = upstream && (await fetchForkPoint(upstream, refork!.blockNumber));
    await this.rewind(first);
    if (upstream === undefined || point === undefined) return;
    const old = this.headBlock;
    fork!.retarget(upstream, point);
    const block = await this.builder.firstBlock(old.header.stateRoot, point);
    const ops = chain.replaceFirstOps(old, block);
    for (const fn of this.rebasers) ops.push(...fn(block.number));
    await this.deps.kv.write(ops);
    chain.replacedFirst(old, block);
    this.headBlock = block;
    this.carried = undefined;
    for (const fn of this.rewindListeners) fn(block.number, []);
  }

  /** Registers the batch ops that move an index to a new first block (anvil_reset to another fork point). */
  addRebaser(fn: (first: bigint) => KvOp[]): void {
    this.rebasers.push(fn);
  }

  /** Re-reads the head from the store (after a state-sync restore wrote a new one underneath the app). */
  async reload(): Promise<void> {
    this.sealed = undefined;
    this.carried = undefined;
    this.headDb.discard();
    await this.init();
  }

  /** The staking module's validator set at the head (the genesis set at block 0), for consensus. */
  genesisValidatorSet(): ValidatorUpdate[] {
    const m = Modules.over(
      scratchState(this.deps.state.readView(this.headBlock.header.stateRoot)),
      this.deps.genesis.modules.params,
      this.headBlock.number,
      this.headBlock.header.timestamp,
    );
    return m.staking
      .lastValidatorPowers()
      .map(([op, power]) => ({ consPubkey: m.staking.validator(op)!.consPubkey, power }));
  }

  /** Estimated bytes of the head's block state: the tries and values the last block handed to the next. */
  get blockStateBytes(): number {
    return (this.carried?.entries ?? 0) * READER_ENTRY_BYTES;
  }

  /** The latest committed block. */
  get head(): BlockRecord {
    return this.headBlock;
  }

  /** The base fee the next block will charge (EIP-1559). */
  nextBaseFee(): bigint {
    return this.headBlock.header.calcNextBaseFee();
  }

  /** Current admission rules. */
  rules(): AdmissionRules {
    return {
      evmChainId: this.deps.evmChainId,
      blockGasLimit: this.headBlock.header.gasLimit,
      baseFee: this.nextBaseFee(),
      minGasPrice: this.minGasPrice,
      fork: this.fork,
      txGasLimitCap: forkRules(this.fork).txGasLimitCap,
    };
  }

  /** CheckTx: decodes, verifies and checks a raw transaction against the latest state. */
  async checkTx(raw: Uint8Array): Promise<CheckedTx> {
    return this.checkDecoded(this.decode(raw));
  }

  /** The stateless half of CheckTx: decoding, chain id and sender recovery (deterministic: no node-local rule). */
  decode(raw: Uint8Array): ExecTx {
    return decodeTx(raw, this.rules());
  }

  /** decode() without the sender's recovery: the caller runs the returned job (anywhere) and calls recovered(). */
  prepare(raw: Uint8Array): UnrecoveredTx {
    return prepareTx(raw, this.rules());
  }

  /** The decoded tx of prepare() with its sender, from the public key its recovery job gave. */
  recovered(u: UnrecoveredTx, publicKey: Uint8Array): ExecTx {
    return recoveredTx(u, publicKey);
  }

  /** An account's nonce and balance in the latest committed state (forked: the upstream's until written here). */
  async headAccount(addr: Uint8Array): Promise<AccountState> {
    return this.deps.fork ? this.forkedHeadAccount(this.deps.fork, addr) : this.readHeadAccount(addr);
  }

  /** The forked chain's upstream, if any (its fork point names the block the chain continues). */
  get upstream(): ForkState | undefined {
    return this.deps.fork;
  }

  /**
   * A forked chain's account at the head: an account neither fetched nor written locally is fetched from the
   * upstream first, so admission sees the sender's real nonce and balance rather than an empty account.
   */
  private async forkedHeadAccount(fork: ForkState, addr: Uint8Array): Promise<AccountState> {
    const head = this.headBlock;
    const db = this.deps.state.bufferedDb();
    try {
      const reader = new ArchiveStateReader(
        head.header.stateRoot,
        (k) => db.getSync(k),
        () => undefined,
      );
      const a = bytesToBigint(addr);
      const acc = await fork.resolve(() => forkReader(reader, fork, head.number).account(a));
      return { nonce: acc?.nonce ?? 0n, balance: acc?.balance ?? 0n };
    } finally {
      db.discard();
    }
  }

  private readHeadAccount(addr: Uint8Array): AccountState {
    const acc = this.deps.state.readView(this.headBlock.header.stateRoot).account(addr);
    return { nonce: acc?.nonce ?? 0n, balance: acc?.balance ?? 0n };
  }

  /**
   * The stateful half of CheckTx for an already decoded tx (cheap to repeat after a commit: no signature work).
   * `sender` is the sender's account at the head when the caller holds it already (the node's head-state cache,
   * read in the same synchronous step), sparing a trie walk; otherwise it is read here.
   */
  async checkDecoded(item: ExecTx, sender?: AccountState): Promise<CheckedTx> {
    const rules = this.rules();
    // Forked, the head cache knows only local accounts: the sender is read through the upstream.
    const acc = this.deps.fork
      ? await this.forkedHeadAccount(this.deps.fork, item.sender)
      : (sender ?? this.readHeadAccount(item.sender));
    checkAgainstState(item, acc, rules);
    return { ...item, stateNonce: acc.nonce };
  }

  /**
   * FinalizeBlock: executes the proposed txs on the head state and seals the next block (not yet persisted).
   * `coinbase` overrides the node's etherbase: under BFT consensus it must come from the block (its proposer), so
   * that every validator seals the same header. `sameSecond` lets a block share its parent's timestamp (CometBFT
   * makes several blocks a second; bumping each by a second would run the chain's clock ahead of BFT time).
   */
  async finalizeBlock(req: {
    txs: ExecTx[];
    time: bigint;
    coinbase?: Uint8Array;
    sameSecond?: boolean;
    /** Dev toolkit: the block gets `time` as is, even at or before its parent's (Anvil's anvil_setTime, intervals). */
    exactTime?: boolean;
    /** Dev toolkit (anvil_setBalance, …): state edits applied before the block's txs, so they get a block of their own. */
    edits?: readonly StateEdit[];
    /** The last commit's votes and evidence (CometBFT); absent in solo mode. */
    consensus?: ConsensusInfo;
  }): Promise<FinalizeResult> {
    if (this.sealed) throw new KestrelError('finalizeBlock called twice without commit');
    // A block without txs on an own chain runs only the system call (whose contract calls no precompile): it need
    // not wait for the pairing curves' libraries, so a fresh chain's block 1 is sealed, and answered, before them.
    // A forked chain's system contract is the upstream's code, so it waits for everything.
    await (req.txs.length === 0 && this.deps.fork === undefined ? initEngineForSystemCalls() : initEngine());
    const parent = this.headBlock;
    const coinbase = req.coinbase ?? this.etherbase;
    const ctx = this.builder.nextContext(parent, req.time, req.sameSecond === true, coinbase, req.exactTime);
    const parentTime = parent.header.timestamp;
    try {
      let parentRoot = this.headBlock.header.stateRoot;
      let edited: HeadChange[] = [];
      const edits = [
        ...(await this.builder.forkEdits(parentRoot, ctx, req, parentTime, this.carried)),
        ...(req.edits ?? []),
      ];
      if (edits.length > 0) {
        // The edits reach the trie (in the head's write buffer) first, so the engine starts from them.
        ({ root: parentRoot, changes: edited } = this.builder.applyEdits(parentRoot, this.headDb, edits, this.carried));
      }
      const exec = this.builder.execute(parentRoot, this.headDb, ctx, req.txs, parentTime, this.carried, req.consensus);
      const { block, encodedTxs } = await this.builder.sealRecord(ctx, exec.stateRoot, exec);
      const validatorUpdates = exec.validatorUpdates ?? [];
      this.sealed = {
        block,
        receipts: exec.receipts,
        rejected: exec.rejected,
        validatorUpdates,
        encodedTxs,
        carry: exec.carry,
      };
      this.sealed.headChanges = () => [...edited, ...headChangesOf(exec.diff, exec.storageRoots)];
      return { block, receipts: exec.receipts, rejected: exec.rejected, validatorUpdates };
    } catch (e) {
      await this.abandon();
      throw e;
    }
  }

  /**
   * The block `txs` would make on top of the head at `time`, executed on a throwaway copy of the head state
   * (eth_getBlockByNumber("pending")); nothing is written and the head is untouched.
   */
  async previewBlock(txs: ExecTx[], time: bigint): Promise<CommittedBlock> {
    await initEngine();
    const parent = this.headBlock;
    const ctx = this.builder.nextContext(parent, time, false, this.etherbase);
    const db = this.deps.state.bufferedDb();
    const exec = this.builder.execute(parent.header.stateRoot, db, ctx, txs, parent.header.timestamp, this.carried);
    db.discard();
    const { block } = await this.builder.sealRecord(ctx, exec.stateRoot, exec);
    return { block, receipts: exec.receipts };
  }

  /**
   * Drops a block finalized but never committed (the consensus engine restarted between FinalizeBlock and
   * Commit and is replaying that height); returns whether there was one.
   */
  async discardSealed(): Promise<boolean> {
    if (!this.sealed) return false;
    await this.abandon();
    return true;
  }

  /** Drops a sealed but uncommitted block and returns the head state to the last commit. */
  private async abandon(): Promise<void> {
    this.deps.fork?.abandoned();
    this.sealed = undefined;
    this.headDb.discard();
  }

  /** Commit: persists the sealed block, its state and indexes in one atomic batch, then announces it. */
  async commit(): Promise<CommittedBlock> {
    const s = this.sealed;
    if (!s) throw new KestrelError('commit called without a finalized block');
    const t0 = performance.now();
    const ops = [...this.headDb.drain(), ...this.deps.chain.blockOps(s.block, s.receipts, s.encodedTxs)];
    const committed: CommittedBlock = { block: s.block, receipts: s.receipts };
    if (s.headChanges) committed.stateChanges = s.headChanges();
    try {
      for (const index of this.indexers) ops.push(...index(committed));
      const written = this.deps.kv.write(ops);
      faultPoint('commit');
      await written;
      this.deps.fork?.committed(s.block.number);
    } catch (e) {
      await this.abandon();
      throw e;
    }
    this.deps.chain.remember(s.block, s.receipts);
    this.lastCommitSeconds = (performance.now() - t0) / 1000;
    this.headBlock = s.block;
    this.carried = s.carry;
    this.sealed = undefined;
    for (const fn of this.commitListeners) {
      try {
        fn(committed);
      } catch (e) {
        console.error('commit listener failed:', e);
      }
    }
    if (this.deps.afterCommit) {
      try {
        await this.deps.afterCommit(committed);
      } catch (e) {
        console.error('after-commit task failed:', e);
      }
    }
    return committed;
  }

  /**
   * Forgets every block above `keep` (evm_revert): blocks, receipts, logs and index entries go in one atomic batch
   * with the head's move, so a crash leaves the old or the new head; trie nodes stay (content-addressed). Only
   * while no block is being produced.
   */
  async rewind(keep: bigint): Promise<BlockRecord[]> {
    if (this.sealed) throw new KestrelError('rewind while a block is being produced');
    const head = this.headBlock.number;
    const target = this.deps.chain.blockByNumber(keep);
    if (!target || keep > head) throw new NotFoundError(`block ${keep} not found`);
    if (keep === head) return [];
    // With pruning the target's state may be gone: refuse before anything is written.
    this.deps.state.requireRoot(target.header.stateRoot);
    const forgotten: BlockRecord[] = [];
    for (let n = keep + 1n; n <= head; n++) forgotten.push(this.deps.chain.blockByNumber(n)!);
    const ops: KvOp[] = [];
    for (const fn of this.rewinders) ops.push(...fn(keep, head));
    ops.push(...this.deps.chain.rewindOps(keep, head));
    const written = this.deps.kv.write(ops);
    faultPoint('rewind');
    await written;
    this.deps.fork?.rewound(keep);
    this.deps.chain.forgetAbove(keep);
    this.headBlock = target;
    await this.abandon();
    for (const fn of this.rewindListeners) fn(keep, forgotten);
    return forgotten;
  }

  /** Registers the batch ops that undo an index's entries for the blocks a rewind forgets. */
  addRewinder(fn: (keep: bigint, head: bigint) => KvOp[]): void {
    this.rewinders.push(fn);
  }

  /** Registers a listener called after a rewind with the forgotten blocks. */
  onRewind(fn: (keep: bigint, forgotten: BlockRecord[]) => void): void {
    this.rewindListeners.push(fn);
  }

  /** Registers an index whose writes for each block join that block's atomic batch (the log index). */
  addIndexer(fn: (c: CommittedBlock) => KvOp[]): void {
    this.indexers.push(fn);
  }

  /** Registers a listener called after every commit. */
  onCommit(fn: (c: CommittedBlock) => void): void {
    this.commitListeners.push(fn);
  }

  /**
   * Query: ABCI-style read by path at a height (0/undefined = latest). Path `/evm/account` takes the 20-byte
   * address and answers the RLP account [nonce, balance, storageRoot, codeHash] (empty when absent); the
   * Cosmos query paths plug in here as they arrive.
   */
  async query(path: string, data: Uint8Array, height?: bigint): Promise<Uint8Array> {
    const h = height === undefined || height === 0n ? this.headBlock.number : height;
    if (h > this.headBlock.number) {
      throw new NotFoundError(
        `height ${h} must be less than or equal to the current blockchain height ${this.headBlock.number}`,
      );
    }
    const block = this.deps.chain.blockByNumber(h);
    if (!block) throw new NotFoundError(`height ${h} is not available`);
    if (path === '/evm/account') {
      if (data.length !== 20) throw new KestrelError('account query wants a 20-byte address');
      return this.deps.state.readView(block.header.stateRoot).account(data)?.rlp ?? new Uint8Array(0);
    }
    const module = this.deps.queryModules?.find((m) => path.startsWith(m.prefix));
    if (module) return module.query(path, data, block);
    throw new NotFoundError(`unknown query path ${path}`);
  }
}
