// eth_simulateV1 on Kestrel's engine: simulated blocks on top of a block's state, one after the other, each with
// its overrides, its calls run as transactions (nonces, gas pool, receipts, roots), and a sealed header whose hash
// the next block's BLOCKHASH sees. One WorldState over the base block's archived state holds the whole
// simulation; each block's state root is its diff written over the base root in memory. Nothing is persisted.
import { createBlockHeader, type BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { createTx, type TypedTransaction } from '@ethereumjs/tx';
import { Address as EthAddress, createContractAddress, toChecksumAddress } from '@ethereumjs/util';
import { ExecutionError, SimulateError } from '../../../errors/index.ts';
import type {
  Address,
  BlockEnv,
  ExecOptions,
  Fork,
  Precompile,
  StateReader,
  Tx,
  TxOutcome,
} from '../../../evm/index.ts';
import {
  ExecutionAborted,
  executeTransaction,
  initEngine,
  intrinsicGas,
  precompilesFor,
  WorldState,
} from '../../../evm/index.ts';
import { bytesToBigint } from '../../../evm/bytes.ts';
import { indexedTrieRoot } from '../../../evm/trie/root.ts';
import type { Withdrawal } from '../../../primitives/overrides.ts';
import { encodeBlock } from '../../../store/encoding.ts';
import type { BlockRecord, LogRecord, ReceiptRecord } from '../../../store/records.ts';
import { blockBloom, keccakOf, receiptsRoot, transactionsRoot } from '../../block.ts';
import type { NodeReader } from '../../state/trieGet.ts';
import { vmErrorText } from '../accessList.ts';
import type { ArchiveStateReader } from '../archiveReader.ts';
import { jumpLocation, precompileFailure, statusError, topFault } from '../callRules.ts';
import { addressBytes, addressOf, engineFork, KESTREL_RULES } from '../engineTx.ts';
import { logRecord } from '../executor.ts';
import { blobBaseFee } from '../forkConfig.ts';
import { planOverrides } from '../overrides.ts';
import { decodeRevertReason } from '../revert.ts';
import { writeState } from '../stateWrite.ts';
import { CallLogCollector } from './callLogs.ts';
import { checkLimits, planChain, precheck, type SimBlockInput, type SimBlockPlan } from './plan.ts';
import { writeWorldOverrides } from './worldOverrides.ts';

/** What the simulator needs from the node. */
export interface SimulateDeps {
  common: Common;
  /** The base block's state (the reader of its root, shared with eth_call). */
  reader: ArchiveStateReader;
  /** The archive's trie nodes (each block's state root is computed over them, in memory). */
  readNode: NodeReader;
  hashOf: (n: bigint) => Uint8Array | undefined;
  /** Gas all calls of one request may use together (the node's gas cap; 0 = none). */
  gasCap: bigint;
  timeoutMs: number;
}

/** The request, decoded. */
export interface SimulateOptions {
  blocks: SimBlockInput[];
  traceTransfers: boolean;
  validation: boolean;
}

/** A call's failure as eth_simulateV1 reports it inside the result. */
export interface SimCallError {
  message: string;
  code: number;
  data?: Uint8Array;
}

/** One call's outcome. */
export interface SimCallResult {
  returnData: Uint8Array;
  logs: LogRecord[];
  gasUsed: bigint;
  maxUsedGas: bigint;
  status: 0 | 1;
  error?: SimCallError;
}

/** One simulated block: a block record (as stored blocks are) and its calls' outcomes. */
export interface SimBlockResult {
  block: BlockRecord;
  calls: SimCallResult[];
}

const ZERO32 = new Uint8Array(32);
const MAX_NONCE = 2n ** 64n - 1n;
/** EIP-3860's limit on init code (2 × the 24576-byte code limit). */
const MAX_INITCODE_SIZE = 49152;
const GWEI = 1_000_000_000n;
/** geth's code for a call that failed in the EVM (other than a revert). */
const VM_ERROR_CODE = -32015;
const REVERT_CODE = 3;
/** Trie nodes of a simulated block's root are not kept: each block's root is computed over the base root again. */
const DROP = (): void => {};

/** Runs eth_simulateV1 on top of `base`. */
export async function simulate(
  deps: SimulateDeps,
  opts: SimulateOptions,
  base: BlockRecord,
): Promise<SimBlockResult[]> {
  checkLimits(opts.blocks);
  const plans = planChain(opts.blocks, { number: base.number, time: base.header.timestamp });
  await initEngine();
  return new Simulation(deps, opts, base).run(plans);
}

/** What one call's transaction did, with the error text ethereumjs gave it (undefined on success). */
interface CallRun {
  outcome: TxOutcome;
  error: string | undefined;
}

class Simulation {
  private readonly simulatedHashes = new Map<bigint, Uint8Array>();
  private readonly world: WorldState;
  private readonly fork: Fork;
  private readonly forkTable: ReadonlyMap<Address, Precompile>;
  private readonly logs: CallLogCollector | undefined;
  private readonly deadline: number | undefined;
  private budget: bigint;

  constructor(
    private readonly deps: SimulateDeps,
    private readonly opts: SimulateOptions,
    private readonly base: BlockRecord,
  ) {
    const reader = deps.reader;
    // BLOCKHASH sees the simulated blocks before the chain's.
    const state: StateReader = {
      account: (a) => reader.account(a),
      code: (h) => reader.code(h),
      storage: (a, k) => reader.storage(a, k),
      blockHash: (n) => this.simulatedHashes.get(n) ?? reader.blockHash(n),
    };
    this.world = new WorldState(state);
    this.fork = engineFork(deps.common);
    this.forkTable = precompilesFor(this.fork);
    this.budget = deps.gasCap > 0n ? deps.gasCap : 2n ** 64n - 1n;
    if (opts.traceTransfers) this.logs = new CallLogCollector((a) => this.world.account(a).balance);
    if (deps.timeoutMs > 0) this.deadline = Date.now() + deps.timeoutMs;
  }

  run(plans: SimBlockPlan[]): SimBlockResult[] {
    const out: SimBlockResult[] = [];
    let parent: BlockHeader = this.base.header;
    for (const plan of plans) {
      const result = this.block(plan, parent);
      this.simulatedHashes.set(result.block.number, result.block.hash);
      parent = result.block.header;
      out.push(result);
    }
    return out;
  }

  private timeout(): ExecutionError {
    return new ExecutionError(`execution aborted (timeout = ${this.deps.timeoutMs / 1000}s)`);
  }

  /** The precompiles of one block: the fork's, with this block's moves applied (they hold for their block only). */
  private precompilesOf(moves: ReturnType<typeof planOverrides>['precompiles']): Map<Address, Precompile> | undefined {
    if (moves.length === 0) return undefined;
    const table = new Map(this.forkTable);
    for (const m of moves) {
      const p = table.get(addressOf(m.from));
      if (m.to !== undefined && p !== undefined) table.set(addressOf(m.to), p);
      table.delete(addressOf(m.from));
    }
    return table;
  }

  private block(plan: SimBlockPlan, parent: BlockHeader): SimBlockResult {
    const o = plan.overrides;
    const common = this.deps.common;
    const baseFee = o.baseFeePerGas ?? (this.opts.validation ? parent.calcNextBaseFee() : 0n);
    const fields = {
      parentHash: parent.hash(),
      coinbase: o.feeRecipient ?? parent.coinbase.bytes,
      number: plan.number,
      timestamp: plan.time,
      gasLimit: o.gasLimit ?? parent.gasLimit,
      mixHash: o.prevRandao ?? ZERO32,
      baseFeePerGas: baseFee,
      parentBeaconBlockRoot: o.beaconRoot ?? ZERO32,
      difficulty: 0n,
    };
    const priced: BlockEnv = {
      number: plan.number,
      timestamp: plan.time,
      coinbase: addressOf(fields.coinbase),
      gasLimit: fields.gasLimit,
      baseFee,
      prevRandao: bytesToBigint(fields.mixHash),
      blobBaseFee: o.blobBaseFee ?? blobBaseFee(0n),
      chainId: common.chainId(),
    };
    // A call without fees outside validation pays nothing (geth's NoBaseFee): it runs at base fee 0.
    const unpriced: BlockEnv = { ...priced, baseFee: 0n };

    const planned = planOverrides(
      plan.stateOverrides,
      [...this.forkTable.keys()].map((a) => addressBytes(a)),
    );
    const precompiles = this.precompilesOf(planned.precompiles);
    writeWorldOverrides(this.world, planned.accounts);

    const txs: TypedTransaction[] = [];
    const hashes: Uint8Array[] = [];
    const senders: Uint8Array[] = [];
    const receipts: ReceiptRecord[] = [];
    const calls: SimCallResult[] = [];
    let gasUsed = 0n;
    for (const req of plan.calls) {
      const from = req.from ?? new Uint8Array(20);
      const acc = this.world.account(addressOf(from));
      const nonce = req.nonce ?? acc.nonce;
      const remaining = fields.gasLimit - gasUsed;
      const asked = req.gas ?? remaining;
      if (remaining < asked) {
        throw new SimulateError(
          'BLOCK_GAS_LIMIT_REACHED',
          `block gas limit reached: remaining: ${remaining}, required: ${asked}`,
        );
      }
      const gas = asked < this.budget ? asked : this.budget;
      const capped = gas < asked;
      const maxFeePerGas = req.gasPrice ?? req.maxFeePerGas ?? 0n;
      const maxPriorityFeePerGas = req.gasPrice ?? req.maxPriorityFeePerGas ?? 0n;
      const data = req.data ?? new Uint8Array(0);
      if (req.to === undefined && data.length > MAX_INITCODE_SIZE) {
        throw new SimulateError(
          'INIT_CODE_TOO_LARGE',
          `err: max initcode size exceeded: code size ${data.length} limit ${MAX_INITCODE_SIZE} (supplied gas ${gas})`,
        );
      }
      const accessList = req.accessList ?? [];
      // EIP-2681 caps a transaction's nonce below 2^64-1; a state nonce past it (an override) only runs unchecked.
      const txNonce = nonce < MAX_NONCE ? nonce : 0n;
      const value = req.value ?? 0n;
      const tx = buildTx(
        {
          type: 2,
          chainId: common.chainId(),
          nonce: txNonce,
          gasLimit: gas,
          maxFeePerGas,
          maxPriorityFeePerGas,
          to: req.to,
          value,
          data,
          accessList: accessList.map((a) => [a.address, a.storageKeys]) as never,
        },
        common,
      );
      const sender = new EthAddress(from);
      (tx as unknown as { getSenderAddress: () => EthAddress }).getSenderAddress = () => sender;
      const hash = keccakOf(common)(tx.serialize());
      precheck(
        {
          from: toChecksumAddress(sender.toString()),
          nonce,
          gas,
          value,
          maxFeePerGas,
          maxPriorityFeePerGas,
          intrinsicGas: tx.getIntrinsicGas(),
        },
        { nonce: acc.nonce, balance: acc.balance },
        baseFee,
        this.opts.validation,
      );
      const pays = maxFeePerGas > 0n || this.opts.validation;
      const engineTx: Tx = {
        type: 2,
        from: addressOf(from),
        to: req.to === undefined ? undefined : addressOf(req.to),
        nonce: txNonce,
        gasLimit: gas,
        value,
        data,
        gasPrice: 0n,
        maxFeePerGas,
        maxPriorityFeePerGas,
        accessList: accessList.map((a) => ({
          address: addressOf(a.address),
          storageKeys: a.storageKeys.map((k) => bytesToBigint(k)),
        })),
        maxFeePerBlobGas: 0n,
        blobVersionedHashes: [],
        authorizationList: [],
      };
      const { outcome, error } = this.execute(pays ? priced : unpriced, engineTx, precompiles);
      if (!outcome.ok) throw refused(outcome.reason, outcome.message, engineTx, this.fork);
      const r = outcome.result;
      const spent = r.gasUsed;
      if (spent > this.budget)
        throw new ExecutionError(`RPC gas cap exhausted: need ${spent}, remaining ${this.budget}`);
      this.budget -= spent;
      gasUsed += spent;
      const bloom = new Uint8Array(256);
      const receiptLogs: LogRecord[] = r.logs.map((l) => logRecord(l, bloom));
      const receipt: ReceiptRecord = {
        type: 2,
        status: error !== undefined ? 0 : 1,
        cumulativeGasUsed: gasUsed,
        gasUsed: spent,
        logs: receiptLogs,
        bloom,
        from,
        effectiveGasPrice: pays ? effectivePrice(maxFeePerGas, maxPriorityFeePerGas, baseFee) : 0n,
      };
      if (req.to) receipt.to = req.to;
      else receipt.contractAddress = createContractAddress(sender, nonce).bytes;
      // Where the EIP-7623 floor is what the call paid, no refund is counted (ethereumjs' gasRefund).
      const floored = r.gasRefund > 0n && spent === intrinsicGas(engineTx, this.fork).floor;
      const result: SimCallResult = {
        // A failed call's output is in its error (revert data), not in returnData (geth's ExecutionResult.Return).
        returnData: error !== undefined ? new Uint8Array(0) : r.output,
        logs: error !== undefined ? [] : this.logs ? this.logs.logs() : receiptLogs,
        gasUsed: spent,
        maxUsedGas: floored ? spent : spent + r.gasRefund,
        status: error !== undefined ? 0 : 1,
      };
      if (error !== undefined) result.error = callError(error, r.output, capped);
      txs.push(tx);
      hashes.push(hash);
      senders.push(from);
      receipts.push(receipt);
      calls.push(result);
    }
    const withdrawals = o.withdrawals ?? [];
    for (const w of withdrawals) {
      const amount = w.amount * GWEI;
      if (amount === 0n) continue;
      const a = this.world.account(addressOf(w.address));
      this.world.setBalance(a, a.balance + amount);
    }
    const stateRoot = writeState(this.base.header.stateRoot, this.world.diff(), this.deps.readNode, DROP, {
      loaded: this.deps.reader,
    });
    const hashFn = keccakOf(common);
    const header = createBlockHeader(
      {
        ...fields,
        stateRoot,
        transactionsTrie: transactionsRoot(
          txs.map((t) => t.serialize()),
          hashFn,
        ),
        receiptTrie: receiptsRoot(receipts, hashFn),
        logsBloom: blockBloom(receipts),
        gasUsed,
        withdrawalsRoot: indexedTrieRoot(withdrawals.map(encodeWithdrawal), hashFn),
        blobGasUsed: 0n,
        excessBlobGas: 0n,
      },
      { common, setHardfork: false },
    );
    const record: BlockRecord = {
      header,
      hash: header.hash(),
      number: plan.number,
      txs,
      txHashes: hashes,
      senders,
      size: 0n,
    };
    record.size = BigInt(encodeBlock(record, withdrawals.map(withdrawalItem)).length);
    return { block: record, calls };
  }

  /**
   * Runs one call as a transaction of the simulation: no nonce check and no EIP-3607 sender check (geth's
   * simulation skips both); the fee and balance rules were checked by precheck(). The timeout covers the whole
   * request. A bad jump of the top frame is replayed with a tracer for where it was (ethereumjs' error text).
   */
  private execute(env: BlockEnv, tx: Tx, precompiles: Map<Address, Precompile> | undefined): CallRun {
    if (this.deadline !== undefined && Date.now() > this.deadline) throw this.timeout();
    const opts: ExecOptions = {
      fork: this.fork,
      rules: KESTREL_RULES,
      isCall: true,
      ...(this.deadline !== undefined && { deadline: this.deadline }),
      ...(precompiles !== undefined && { precompiles }),
    };
    const snap = this.world.snapshot();
    this.logs?.reset();
    const outcome = this.guarded(tx, env, this.logs ? { ...opts, tracer: this.logs } : opts);
    if (!outcome.ok) return { outcome, error: undefined };
    const status = outcome.result.status;
    let error = statusError(status);
    if (status === 'precompile_failure') error = precompileFailure(this.precompileNumber(tx.to!, precompiles), tx.data);
    if (status === 'bad_jump') {
      this.world.revertTo(snap);
      const t = topFault();
      this.guarded(tx, env, { ...opts, tracer: t });
      const top = t.top!;
      const code = top.kind === 'CREATE' ? top.input : this.world.code(this.world.account(top.codeAddress));
      error += ' at ' + jumpLocation(code, top.to, t.pc ?? 0);
    }
    return { outcome, error };
  }

  private guarded(tx: Tx, env: BlockEnv, opts: ExecOptions): TxOutcome {
    try {
      return executeTransaction(this.world, env, tx, opts);
    } catch (e) {
      if (e instanceof ExecutionAborted) throw this.timeout();
      throw e;
    }
  }

  /** The fork-table address (a small number) of the precompile a top-level call ran at `to`. */
  private precompileNumber(to: Address, precompiles: Map<Address, Precompile> | undefined): number {
    const ran = (precompiles ?? this.forkTable).get(to);
    for (const [a, p] of this.forkTable) if (p === ran) return Number(a);
    return 0;
  }
}

/** Builds the simulated transaction; a field ethereumjs refuses is the request's fault. */
function buildTx(data: Parameters<typeof createTx>[0], common: Common): TypedTransaction {
  try {
    return createTx(data, { common, freeze: false });
  } catch (e) {
    throw new SimulateError('INVALID_PARAMS', `err: ${(e instanceof Error ? e.message : String(e)).split(' (')[0]}`);
  }
}

/** A transaction the engine refused before running it (a rule precheck() does not cover), in ethereumjs' words. */
function refused(reason: string, message: string, tx: Tx, fork: Fork): SimulateError {
  if (reason === 'INTRINSIC_GAS_TOO_LOW' || reason === 'FLOOR_DATA_GAS_TOO_LOW') {
    const { gas, floor } = intrinsicGas(tx, fork);
    const min = gas > floor ? gas : floor;
    return new SimulateError(
      'INVALID_PARAMS',
      `err: INTRINSIC_GAS_TOO_LOW: tx gas limit ${tx.gasLimit} is lower than the minimum gas limit of ${min}`,
    );
  }
  if (reason === 'INITCODE_TOO_LARGE') {
    return new SimulateError('INIT_CODE_TOO_LARGE', `err: max initcode size exceeded: ${message}`);
  }
  return new SimulateError('INVALID_PARAMS', `err: ${message}`);
}

function effectivePrice(feeCap: bigint, tip: bigint, baseFee: bigint): bigint {
  return feeCap < baseFee + tip ? feeCap : baseFee + tip;
}

function withdrawalItem(w: Withdrawal): Uint8Array[] {
  const q = (n: bigint) =>
    n === 0n
      ? new Uint8Array(0)
      : Uint8Array.from(Buffer.from(n.toString(16).padStart(Math.ceil(n.toString(16).length / 2) * 2, '0'), 'hex'));
  return [q(w.index), q(w.validatorIndex), w.address, q(w.amount)];
}

function encodeWithdrawal(w: Withdrawal): Uint8Array {
  return RLP.encode(withdrawalItem(w));
}

function callError(error: string, data: Uint8Array, capped: boolean): SimCallError {
  if (error === 'revert') {
    const reason = decodeRevertReason(data);
    return {
      message: reason !== undefined ? `execution reverted: ${reason}` : 'execution reverted',
      code: REVERT_CODE,
      data,
    };
  }
  // The spec's schema wants "vm execution error…" for -32015 (geth sends the bare EVM error: "out of gas").
  const text = `vm execution error: ${vmErrorText(error)}`;
  return {
    message: capped ? `${text} (gas limit was capped by the RPC server's global gas cap)` : text,
    code: VM_ERROR_CODE,
  };
}
