// Building a block over a parent state: the next block's context, the engine run over the parent's trie, the
// dev-toolkit and fork edits written ahead of the txs, and the sealed record. Nothing here is written to the store
// or changes the head: the app (app.ts) decides what a built block becomes (sealed, previewed or thrown away).
import type { Common } from '@ethereumjs/common';
import { type Fork, WorldState } from '../evm/index.ts';
import type { ChainStore } from '../store/chainStore.ts';
import { blockSize } from '../store/chainStore.ts';
import type { BufferedTrieDb } from '../store/trieDb.ts';
import type { BlockRecord } from '../store/records.ts';
import { blockSizeOf, deriveMixHash, keccakOf, sealHeader, type BlockContext } from './block.ts';
import { ArchiveStateReader, readerEntriesFor, type CarriedTries } from './evm/archiveReader.ts';
import { blockEnvOf } from './evm/engineTx.ts';
import { executeBlock, type BlockExecution, type EngineBlockExecution, type ExecTx } from './evm/executor.ts';
import type { Genesis } from './genesis.ts';
import type { StateDb } from './state/stateDb.ts';
import { writeState, type WriteOptions } from './evm/stateWrite.ts';
import { headChangesOf } from './evm/headChanges.ts';
import type { HeadChange } from './state/headCache.ts';
import { editsDiff, type StateEdit } from './stateEdits.ts';
import { withSupplyFollowing } from './bank/supplyEdit.ts';
import { forkReader } from './fork/forkReader.ts';
import type { ForkState } from './fork/forkState.ts';
import type { ForkPoint } from './fork/forkPoint.ts';
import { blockHooks } from './staking/blockHooks.ts';
import type { ConsensusInfo } from './staking/modules.ts';
import { encodeTx } from '../primitives/tx/encode.ts';

/** What building a block reads: the chain (BLOCKHASH), the state store, the chain's rules and the upstream if forked. */
export interface BuilderDeps {
  chain: ChainStore;
  state: StateDb;
  common: Common;
  genesis: Genesis;
  evmChainId: bigint;
  fork?: ForkState;
  /** Bytes the tries and values a block hands to the next may hold (the [cache] budget's share); a default otherwise. */
  blockStateBytes?: number;
}

/** A block's execution over its parent state, with the state root it wrote and the tries to carry to the next (if any). */
export type BuiltExecution = EngineBlockExecution & {
  stateRoot: Uint8Array;
  storageRoots: Uint8Array[];
  carry: CarriedTries | undefined;
};

/** Builds blocks over a parent state for one chain (its Common, genesis and engine fork). */
export class BlockBuilder {
  /** The bound on a block reader's entries, carried ones included: the head's block state stays within its share. */
  private readonly maxEntries: number | undefined;

  constructor(
    private readonly deps: BuilderDeps,
    private readonly engineFork: Fork,
  ) {
    this.maxEntries = readerEntriesFor(deps.blockStateBytes);
  }

  /**
   * The chain's first block over `stateRoot`: genesis, or for a forked chain the upstream's fork block N (its
   * number, parent, time, gas limit, gas used and base fee, and its hash, so block N+1's parentHash is upstream's).
   */
  async firstBlock(stateRoot: Uint8Array, point: ForkPoint | undefined): Promise<BlockRecord> {
    const genesis = this.deps.genesis;
    const ctx: BlockContext = {
      number: point?.number ?? 0n,
      parentHash: point?.parentHash ?? new Uint8Array(32),
      timestamp: point?.timestamp ?? genesis.time,
      coinbase: new Uint8Array(20),
      gasLimit: point?.gasLimit ?? genesis.blockGasLimit,
      baseFeePerGas: point?.baseFee ?? genesis.baseFee,
      mixHash: new Uint8Array(32),
    };
    const gasUsed = point?.gasUsed ?? 0n;
    const header = await sealHeader(ctx, this.deps.common, { stateRoot, encodedTxs: [], receipts: [], gasUsed });
    return {
      header,
      hash: point?.hash ?? header.hash(),
      number: ctx.number,
      txs: [],
      txHashes: [],
      senders: [],
      size: blockSize(header.raw(), []),
    };
  }

  /**
   * The context of the block after `parent` at `time` (a second after the parent at least, unless `sameSecond`;
   * exactly `time` with `exactTime`).
   */
  nextContext(
    parent: BlockRecord,
    time: bigint,
    sameSecond: boolean,
    coinbase: Uint8Array,
    exactTime = false,
  ): BlockContext {
    const number = parent.number + 1n;
    const after = time > parent.header.timestamp ? time : parent.header.timestamp + (sameSecond ? 0n : 1n);
    return {
      number,
      parentHash: parent.hash,
      timestamp: exactTime ? time : after,
      coinbase,
      gasLimit: parent.header.gasLimit,
      baseFeePerGas: parent.header.calcNextBaseFee(),
      mixHash: deriveMixHash(parent.hash, number, keccakOf(this.deps.common)),
    };
  }

  /**
   * Runs a block's txs on Kestrel's engine over the state at `parentRoot` and writes the changes into `db`'s
   * buffer; trie nodes are read through `db`, so nodes still buffered there count as well as the archive's.
   * `carried` are the head's decoded tries (used only when the roots match); `parentTime` is the parent's timestamp.
   */
  execute(
    parentRoot: Uint8Array,
    db: BufferedTrieDb,
    ctx: BlockContext,
    txs: ExecTx[],
    parentTime: bigint,
    carried: CarriedTries | undefined,
    consensus?: ConsensusInfo,
  ): BuiltExecution {
    const readNode = (key: Uint8Array): Uint8Array | undefined => db.getSync(key);
    const hashOf = (n: bigint): Uint8Array | undefined => this.deps.chain.blockByNumber(n)?.hash;
    const reader = new ArchiveStateReader(parentRoot, readNode, hashOf, this.maxEntries, carried);
    const elapsed = ctx.timestamp - parentTime;
    const hooks = blockHooks(this.deps.genesis.modules.params, ctx.number, ctx.timestamp, consensus, elapsed);
    const env = blockEnvOf(ctx, this.deps.evmChainId);
    const state = this.deps.fork ? forkReader(reader, this.deps.fork, ctx.number - 1n) : reader;
    const exec = executeBlock(new WorldState(state), ctx, env, txs, this.engineFork, hooks);
    const storageRoots: Uint8Array[] = [];
    const tries: NonNullable<WriteOptions['tries']> = { storage: [] };
    let written = 0;
    const put = (k: Uint8Array, v: Uint8Array): void => {
      written++;
      db.putSync(k, v);
    };
    const stateRoot = writeState(parentRoot, exec.diff, readNode, put, { loaded: reader, storageRoots, tries });
    const carry = reader.carry(stateRoot, tries.accounts!, tries.storage, written, exec.diff, storageRoots);
    return { ...exec, stateRoot, storageRoots, carry };
  }

  /**
   * A forked chain's block first runs as a dry run until its reads miss nothing upstream (each round fetches the
   * misses in one batch); the fetched values not yet committed then become the block's first state edits.
   */
  async forkEdits(
    parentRoot: Uint8Array,
    ctx: BlockContext,
    req: { txs: ExecTx[]; edits?: readonly StateEdit[]; consensus?: ConsensusInfo },
    parentTime: bigint,
    carried: CarriedTries | undefined,
  ): Promise<StateEdit[]> {
    const fork = this.deps.fork;
    if (fork === undefined) return [];
    await fork.resolve(() => {
      const db = this.deps.state.bufferedDb();
      try {
        let root = parentRoot;
        if (req.edits !== undefined && req.edits.length > 0) root = this.applyEdits(root, db, req.edits, carried).root;
        this.execute(root, db, ctx, req.txs, parentTime, carried, req.consensus);
      } finally {
        db.discard();
      }
    });
    return fork.pendingEdits();
  }

  /**
   * Writes dev-toolkit edits over the state at `parentRoot` into `db`'s buffer; returns the edited state's root and
   * the edits as head-cache changes.
   */
  applyEdits(
    parentRoot: Uint8Array,
    db: BufferedTrieDb,
    edits: readonly StateEdit[],
    carried: CarriedTries | undefined,
  ): { root: Uint8Array; changes: HeadChange[] } {
    const readNode = (key: Uint8Array): Uint8Array | undefined => db.getSync(key);
    const reader = new ArchiveStateReader(parentRoot, readNode, () => undefined, this.maxEntries, carried);
    const diff = editsDiff(reader, withSupplyFollowing(reader, edits));
    const storageRoots: Uint8Array[] = [];
    const put = (k: Uint8Array, v: Uint8Array): void => db.putSync(k, v);
    const root = writeState(parentRoot, diff, readNode, put, { loaded: reader, storageRoots });
    return { root, changes: headChangesOf(diff, storageRoots) };
  }

  /** Seals the header over an executed block and builds its record; the txs are serialised once, here. */
  async sealRecord(
    ctx: BlockContext,
    stateRoot: Uint8Array,
    exec: BlockExecution,
  ): Promise<{ block: BlockRecord; encodedTxs: Uint8Array[] }> {
    const txs = exec.included.map((t) => t.tx);
    const encodedTxs = exec.included.map((t) => t.encoded ?? encodeTx(t.tx));
    const header = await sealHeader(ctx, this.deps.common, {
      stateRoot,
      encodedTxs,
      receipts: exec.receipts,
      gasUsed: exec.gasUsed,
    });
    const block: BlockRecord = {
      header,
      hash: header.hash(),
      number: ctx.number,
      txs,
      txHashes: exec.included.map((t) => t.hash),
      senders: exec.included.map((t) => t.sender),
      size: blockSizeOf(header.raw(), encodedTxs),
    };
    return { block, encodedTxs };
  }
}
