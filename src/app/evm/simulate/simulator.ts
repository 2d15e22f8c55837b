// eth_simulateV1 on the ethereumjs engine: simulated blocks on top of a block's state, one after the other, each
// with its overrides, its calls run as transactions (nonces, gas pool, receipts, roots), and a sealed header whose
// hash the next block's BLOCKHASH sees. Nothing is persisted: the state lives in a buffered trie that is dropped.
import { createBlock, createBlockHeader, type BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { createTx, type TypedTransaction } from '@ethereumjs/tx';
import {
  Account,
  Address,
  KECCAK256_NULL,
  createContractAddress,
  equalsBytes,
  toChecksumAddress,
} from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { createVM, runTx } from '../vm.ts';
import { RLP } from '@ethereumjs/rlp';
import { ExecutionError, SimulateError } from '../../../errors/index.ts';
import type { Withdrawal } from '../../../primitives/overrides.ts';
import { blockBloom, keccakOf, receiptsRoot, transactionsRoot } from '../../block.ts';
import { encodeBlock } from '../../../store/encoding.ts';
import { indexedTrieRoot } from '../../../evm/trie/root.ts';
import type { BlockRecord, LogRecord, ReceiptRecord } from '../../../store/records.ts';
import type { StateDb } from '../../state/stateDb.ts';
import { vmErrorText } from '../accessList.ts';
import { blockHashSource } from '../blockHashes.ts';
import { armDeadline } from '../callVm.ts';
import { isCallTimeout } from '../ethereumjs.ts';
import { livePrecompiles, movePrecompiles, planOverrides, writeAccountOverrides } from '../overrides.ts';
import { decodeRevertReason } from '../revert.ts';
import { installStepFeed } from '../stepFeed.ts';
import { CallLogCollector } from './callLogs.ts';
import { checkLimits, planChain, precheck, type SimBlockInput, type SimBlockPlan } from './plan.ts';

/** What the simulator needs from the node. */
export interface SimulateDeps {
  common: Common;
  vmCommon: () => Common;
  state: StateDb;
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

/** Runs eth_simulateV1 on top of `base`. */
export async function simulate(
  deps: SimulateDeps,
  opts: SimulateOptions,
  base: BlockRecord,
): Promise<SimBlockResult[]> {
  checkLimits(opts.blocks);
  const plans = planChain(opts.blocks, { number: base.number, time: base.header.timestamp });
  return new Simulation(deps, opts, base).run(plans);
}

class Simulation {
  private readonly state: MerkleStateManager;
  private readonly simulatedHashes = new Map<bigint, Uint8Array>();
  private budget: bigint;
  private readonly clock = { deadline: 0 };

  constructor(
    private readonly deps: SimulateDeps,
    private readonly opts: SimulateOptions,
    private readonly base: BlockRecord,
  ) {
    this.state = deps.state.executionState(base.header.stateRoot);
    this.budget = deps.gasCap > 0n ? deps.gasCap : 2n ** 64n - 1n;
  }

  async run(plans: SimBlockPlan[]): Promise<SimBlockResult[]> {
    const hashOf = (n: bigint): Uint8Array | undefined => this.simulatedHashes.get(n) ?? this.deps.hashOf(n);
    const vm = await createVM({
      common: this.deps.vmCommon(),
      stateManager: this.state,
      blockchain: blockHashSource(hashOf),
    });
    armDeadline(vm, this.clock);
    const table = livePrecompiles(vm.evm);
    const original = new Map(table);
    let logs: CallLogCollector | undefined;
    if (this.opts.traceTransfers) {
      const feed = installStepFeed(vm.evm as never);
      if (!feed) throw new ExecutionError('traceTransfers is not available on this engine build');
      logs = new CallLogCollector(
        vm.evm as never,
        feed,
        true,
        async (a) => (await this.state.getAccount(new Address(a)))?.balance ?? 0n,
      );
    }
    this.clock.deadline = this.deps.timeoutMs > 0 ? Date.now() + this.deps.timeoutMs : 0;
    const out: SimBlockResult[] = [];
    let parent: BlockHeader = this.base.header;
    try {
      for (const plan of plans) {
        // Precompile moves hold for their block only (geth recomputes the active set per block).
        table.clear();
        for (const [k, v] of original) table.set(k, v);
        const result = await this.block(vm, plan, parent, table, logs);
        this.simulatedHashes.set(result.block.number, result.block.hash);
        parent = result.block.header;
        out.push(result);
      }
    } catch (e) {
      if (isCallTimeout(e)) throw new ExecutionError(`execution aborted (timeout = ${this.deps.timeoutMs / 1000}s)`);
      throw e;
    } finally {
      this.clock.deadline = 0;
    }
    return out;
  }

  private async block(
    vm: VM,
    plan: SimBlockPlan,
    parent: BlockHeader,
    table: Map<string, unknown>,
    collector: CallLogCollector | undefined,
  ): Promise<SimBlockResult> {
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
    const execBlock = (fee: bigint) => {
      const header = createBlockHeader(
        { ...fields, baseFeePerGas: fee },
        { common, setHardfork: false, freeze: false },
      );
      const b = createBlock({ header }, { common, setHardfork: false, freeze: false });
      if (o.blobBaseFee !== undefined) b.header.getBlobGasPrice = () => o.blobBaseFee!;
      return b;
    };
    const priced = execBlock(baseFee);
    // A call without fees outside validation pays nothing (geth's NoBaseFee); ethereumjs would refuse its fee cap
    // against a non-zero base fee, so such calls run at base fee 0.
    const unpriced = baseFee === 0n ? priced : execBlock(0n);

    const plannedOverrides = planOverrides(
      plan.stateOverrides,
      [...table.keys()].map((k) => Uint8Array.from(Buffer.from(k, 'hex'))),
    );
    movePrecompiles(table, plannedOverrides.precompiles);
    await writeAccountOverrides(this.state, plannedOverrides.accounts);

    const txs: TypedTransaction[] = [];
    const hashes: Uint8Array[] = [];
    const senders: Uint8Array[] = [];
    const receipts: ReceiptRecord[] = [];
    const calls: SimCallResult[] = [];
    let gasUsed = 0n;
    for (const req of plan.calls) {
      const from = req.from ?? new Uint8Array(20);
      const sender = new Address(from);
      const acc = await this.state.getAccount(sender);
      const nonce = req.nonce ?? acc?.nonce ?? 0n;
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
      const tx = buildTx(
        {
          type: 2,
          chainId: common.chainId(),
          // EIP-2681 caps a transaction's nonce below 2^64-1; a state nonce past it (an override) only runs unchecked.
          nonce: nonce < MAX_NONCE ? nonce : 0n,
          gasLimit: gas,
          maxFeePerGas,
          maxPriorityFeePerGas,
          to: req.to,
          value: req.value ?? 0n,
          data,
          accessList: (req.accessList ?? []).map((a) => [a.address, a.storageKeys]) as never,
        },
        common,
      );
      (tx as unknown as { getSenderAddress: () => Address }).getSenderAddress = () => sender;
      const hash = keccakOf(common)(tx.serialize());
      precheck(
        {
          from: toChecksumAddress(sender.toString()),
          nonce,
          gas,
          value: req.value ?? 0n,
          maxFeePerGas,
          maxPriorityFeePerGas,
          intrinsicGas: tx.getIntrinsicGas(),
        },
        {
          nonce: acc?.nonce ?? 0n,
          balance: acc?.balance ?? 0n,
        },
        baseFee,
        this.opts.validation,
      );
      const pays = maxFeePerGas > 0n || this.opts.validation;
      const block = pays ? priced : unpriced;
      collector?.reset();
      const r = await this.runAsAnySender(vm, tx, block, gasUsed, sender, acc);
      const spent = r.totalGasSpent;
      if (spent > this.budget)
        throw new ExecutionError(`RPC gas cap exhausted: need ${spent}, remaining ${this.budget}`);
      this.budget -= spent;
      gasUsed += spent;
      // Kestrel's fee rule: the base fee is not burned, the coinbase gets the whole fee (as in its own blocks).
      if (pays && block.header.baseFeePerGas! > 0n)
        await this.credit(block.header.coinbase.bytes, spent * block.header.baseFeePerGas!);
      const err = r.execResult.exceptionError;
      const receiptLogs = (r.receipt.logs ?? []).map(([address, topics, data]) => ({ address, topics, data }));
      const receipt: ReceiptRecord = {
        type: 2,
        status: err ? 0 : 1,
        cumulativeGasUsed: gasUsed,
        gasUsed: spent,
        logs: receiptLogs,
        bloom: r.bloom.bitvector,
        from,
        effectiveGasPrice: pays ? effectivePrice(maxFeePerGas, maxPriorityFeePerGas, baseFee) : 0n,
      };
      if (req.to) receipt.to = req.to;
      else receipt.contractAddress = createContractAddress(sender, nonce).bytes;
      const result: SimCallResult = {
        // A failed call's output is in its error (revert data), not in returnData (geth's ExecutionResult.Return).
        returnData: err ? new Uint8Array(0) : r.execResult.returnValue,
        logs: err ? [] : collector ? collector.logs() : receiptLogs,
        gasUsed: spent,
        maxUsedGas: spent + r.gasRefund,
        status: err ? 0 : 1,
      };
      if (err) result.error = callError(err.error, r.execResult.returnValue, capped);
      txs.push(tx);
      hashes.push(hash);
      senders.push(from);
      receipts.push(receipt);
      calls.push(result);
    }
    const withdrawals = o.withdrawals ?? [];
    for (const w of withdrawals) await this.credit(w.address, w.amount * GWEI);
    const stateRoot = await this.state.getStateRoot();
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
   * runTx refuses a sender with code (EIP-3607); geth's simulation skips that check. The sender's first read inside
   * runTx (its pre-transaction account) then shows no code, and the code hash is put back after the transaction.
   */
  private async runAsAnySender(
    vm: VM,
    tx: TypedTransaction,
    block: ReturnType<typeof createBlock>,
    blockGasUsed: bigint,
    sender: Address,
    acc: Account | undefined,
  ) {
    const opts = {
      tx,
      block,
      blockGasUsed,
      skipNonce: true,
      skipBalance: true,
      skipBlockGasLimitValidation: true,
      skipHardForkValidation: true,
    };
    if (!acc || equalsBytes(acc.codeHash, KECCAK256_NULL)) return runTx(vm, opts).catch(rejectedByEngine);
    const sm = this.state as unknown as { getAccount: (a: Address) => Promise<Account | undefined> };
    const read = sm.getAccount;
    let first = true;
    sm.getAccount = async (a: Address) => {
      const got = await read.call(this.state, a);
      if (!first || !got || !a.equals(sender)) return got;
      first = false;
      return new Account(got.nonce, got.balance, got.storageRoot, KECCAK256_NULL);
    };
    try {
      return await runTx(vm, opts).catch(rejectedByEngine);
    } finally {
      sm.getAccount = read;
      const after = await this.state.getAccount(sender);
      if (after && equalsBytes(after.codeHash, KECCAK256_NULL)) {
        after.codeHash = acc.codeHash;
        await this.state.putAccount(sender, after);
      }
    }
  }

  private async credit(address: Uint8Array, amount: bigint): Promise<void> {
    if (amount === 0n) return;
    const a = new Address(address);
    const acc = (await this.state.getAccount(a)) ?? new Account();
    acc.balance += amount;
    await this.state.putAccount(a, acc);
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

/** A transaction the engine refused before running it (a rule the pre-checks above do not cover). */
function rejectedByEngine(e: unknown): never {
  if (isCallTimeout(e)) throw e;
  const msg = (e instanceof Error ? e.message : String(e)).split(' (')[0]!.split('\n')[0]!;
  if (/initcode/i.test(msg)) throw new SimulateError('INIT_CODE_TOO_LARGE', `err: max initcode size exceeded: ${msg}`);
  throw new SimulateError('INVALID_PARAMS', `err: ${msg}`);
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
