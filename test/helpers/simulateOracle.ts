// The ethereumjs-based eth_simulateV1 Kestrel ran before its own engine (as of 233ef77), kept as the differential
// oracle of src/app/evm/simulate/: the same plan, prechecks and block sealing on @ethereumjs/vm over a
// MerkleStateManager, traceTransfers from ethereumjs' message and step events. Test-only.
import { createBlock, createBlockHeader, type BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import { Account, Address, KECCAK256_NULL, createContractAddress, equalsBytes } from '@ethereumjs/util';
import { createVM, runTx, type VM } from '@ethereumjs/vm';
import { ExecutionError, SimulateError } from '../../src/errors/index.ts';
import type { BlockRecord, ReceiptRecord } from '../../src/store/records.ts';
import { blockHashSource } from './blockHashes.ts';
import { planOverrides } from '../../src/app/evm/overrides.ts';
import { livePrecompiles, movePrecompiles, writeAccountOverrides } from './ethereumjsOverrides.ts';
import { planRequest, type SimBlockPlan } from '../../src/app/evm/simulate/plan.ts';
import * as sealing from '../../src/app/evm/simulate/sealing.ts';
import type { SimBlockResult, SimCallResult } from '../../src/app/evm/simulate/sealing.ts';
import type { SimulateOptions } from '../../src/app/evm/simulate/simulator.ts';
import { OracleLogCollector } from './simulateOracleLogs.ts';
import { encodeTx } from '../../src/primitives/tx/encode.ts';

/** What the oracle needs: a state manager at the base block's root (written to), the chain's hashes and gas cap. */
export interface OracleDeps {
  common: Common;
  vmCommon: () => Common;
  state: MerkleStateManager;
  hashOf: (n: bigint) => Uint8Array | undefined;
  gasCap: bigint;
}

/** Runs eth_simulateV1 on top of `base` on @ethereumjs/vm (no timeout). */
export async function simulateOnEthereumjs(
  deps: OracleDeps,
  opts: SimulateOptions,
  base: BlockRecord,
): Promise<SimBlockResult[]> {
  return new Simulation(deps, opts, base).run(planRequest(opts.blocks, base));
}

class Simulation {
  private readonly state: MerkleStateManager;
  private readonly simulatedHashes = new Map<bigint, Uint8Array>();
  private budget: bigint;

  constructor(
    private readonly deps: OracleDeps,
    private readonly opts: SimulateOptions,
    private readonly base: BlockRecord,
  ) {
    this.state = deps.state;
    this.budget = deps.gasCap > 0n ? deps.gasCap : 2n ** 64n - 1n;
  }

  async run(plans: SimBlockPlan[]): Promise<SimBlockResult[]> {
    const hashOf = (n: bigint): Uint8Array | undefined => this.simulatedHashes.get(n) ?? this.deps.hashOf(n);
    const vm = await createVM({
      common: this.deps.vmCommon(),
      stateManager: this.state,
      blockchain: blockHashSource(hashOf),
    });
    const table = livePrecompiles(vm.evm);
    const original = new Map(table);
    let logs: OracleLogCollector | undefined;
    if (this.opts.traceTransfers) {
      logs = new OracleLogCollector(
        vm.evm as never,
        async (a) => (await this.state.getAccount(new Address(a)))?.balance ?? 0n,
      );
    }
    const out: SimBlockResult[] = [];
    let parent: BlockHeader = this.base.header;
    for (const plan of plans) {
      // Precompile moves hold for their block only (geth recomputes the active set per block).
      table.clear();
      for (const [k, v] of original) table.set(k, v);
      const result = await this.block(vm, plan, parent, table, logs);
      this.simulatedHashes.set(result.block.number, result.block.hash);
      parent = result.block.header;
      out.push(result);
    }
    return out;
  }

  private async block(
    vm: VM,
    plan: SimBlockPlan,
    parent: BlockHeader,
    table: Map<string, unknown>,
    collector: OracleLogCollector | undefined,
  ): Promise<SimBlockResult> {
    const o = plan.overrides;
    const common = this.deps.common;
    const fields = sealing.headerFields(plan, parent, this.opts.validation);
    const baseFee = fields.baseFeePerGas;
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

    const body: sealing.BlockBody = { txs: [], hashes: [], senders: [], receipts: [], gasUsed: 0n };
    const calls: SimCallResult[] = [];
    for (const req of plan.calls) {
      const from = req.from ?? new Uint8Array(20);
      const sender = new Address(from);
      const acc = await this.state.getAccount(sender);
      const c = sealing.prepareCall(
        req,
        { nonce: acc?.nonce ?? 0n, balance: acc?.balance ?? 0n },
        {
          common,
          gasLimit: fields.gasLimit,
          gasUsed: body.gasUsed,
          budget: this.budget,
          baseFee,
          validation: this.opts.validation,
        },
      );
      const block = c.pays ? priced : unpriced;
      collector?.reset();
      // The oracle runs ethereumjs's own tx of the record, unsigned, as the prepared sender.
      const etx = createTxFromRLP(encodeTx(c.tx), { common, freeze: false });
      (etx as unknown as { getSenderAddress: () => Address }).getSenderAddress = () => sender;
      const r = await this.runAsAnySender(vm, etx, block, body.gasUsed, sender, acc);
      const spent = r.totalGasSpent;
      if (spent > this.budget)
        throw new ExecutionError(`RPC gas cap exhausted: need ${spent}, remaining ${this.budget}`);
      this.budget -= spent;
      body.gasUsed += spent;
      // Kestrel's fee rule: the base fee is not burned, the coinbase gets the whole fee (as in its own blocks).
      if (c.pays && block.header.baseFeePerGas! > 0n)
        await this.credit(block.header.coinbase.bytes, spent * block.header.baseFeePerGas!);
      const err = r.execResult.exceptionError;
      const receiptLogs = (r.receipt.logs ?? []).map(([address, topics, data]) => ({ address, topics, data }));
      const receipt: ReceiptRecord = {
        type: 2,
        status: err ? 0 : 1,
        cumulativeGasUsed: body.gasUsed,
        gasUsed: spent,
        logs: receiptLogs,
        bloom: r.bloom.bitvector,
        from,
        effectiveGasPrice: c.pays ? sealing.effectivePrice(c.maxFeePerGas, c.maxPriorityFeePerGas, baseFee) : 0n,
      };
      if (req.to) receipt.to = req.to;
      else receipt.contractAddress = createContractAddress(sender, c.nonce).bytes;
      const result: SimCallResult = {
        returnData: err ? new Uint8Array(0) : r.execResult.returnValue,
        logs: err ? [] : collector ? collector.logs() : receiptLogs,
        gasUsed: spent,
        maxUsedGas: spent + r.gasRefund,
        status: err ? 0 : 1,
      };
      if (err) result.error = sealing.callError(err.error, r.execResult.returnValue, c.capped);
      body.txs.push(c.tx);
      body.hashes.push(c.hash);
      body.senders.push(from);
      body.receipts.push(receipt);
      calls.push(result);
    }
    const withdrawals = o.withdrawals ?? [];
    for (const w of withdrawals) await this.credit(w.address, sealing.withdrawalWei(w));
    return { block: sealing.sealBlock(common, fields, body, withdrawals, await this.state.getStateRoot()), calls };
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

/** A transaction the engine refused before running it (a rule the pre-checks above do not cover). */
function rejectedByEngine(e: unknown): never {
  const msg = (e instanceof Error ? e.message : String(e)).split(' (')[0]!.split('\n')[0]!;
  if (/initcode/i.test(msg)) throw new SimulateError('INIT_CODE_TOO_LARGE', `err: max initcode size exceeded: ${msg}`);
  throw new SimulateError('INVALID_PARAMS', `err: ${msg}`);
}
