// The differential oracle of tracing on Kestrel's engine: one transaction over one pre-state, traced on
// @ethereumjs/vm with the driver tracing used before the engine ran it (ethereumjsTraceDriver.ts), and on the
// engine through the production path (src/tracing/replay.ts runTraced). Base fee 0, so both fee rules agree.
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { createBlock } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import { createTx } from '@ethereumjs/tx';
import { Address, createAccount, createAccountFromRLP, privateToAddress } from '@ethereumjs/util';
import { createVM, runTx } from '@ethereumjs/vm';
import { createChainCommon } from '../../src/app/evm/common.ts';
import { KESTREL_RULES } from '../../src/app/evm/engineTx.ts';
import { blobBaseFee } from '../../src/app/evm/forkConfig.ts';
import { installStepFeed } from './stepFeed.ts';
import { type BlockEnv, WorldState } from '../../src/evm/index.ts';
import { MemReader } from '../../src/evm/testing/mem-reader.testing.ts';
import { testTx } from '../../src/evm/testing/engine-inputs.testing.ts';
import { bigintToBytes, bytesToBigint } from '../../src/primitives/hex.ts';
import { gethErrorText } from '../../src/tracing/errors.ts';
import { runTraced, txEnvOf } from '../../src/tracing/replay.ts';
import type { SyncState } from '../../src/tracing/syncState.ts';
import type { Tracer, TraceResult, TxEnv } from '../../src/tracing/types.ts';
import { TraceDriver as OracleDriver } from './ethereumjsTraceDriver.ts';

export const CHAIN_ID = 9000n;
export const KEY = new Uint8Array(32).fill(0x42);
/** The sender every scenario signs with. */
export const SENDER = privateToAddress(KEY);
export const COINBASE = new Uint8Array(20).fill(0xc0);
/** An account of the pre-state. */
export interface PreAccount {
  address: Uint8Array;
  nonce?: bigint;
  balance?: bigint;
  code?: Uint8Array;
  storage?: Array<[bigint, bigint]>;
}

/** One transaction from SENDER (nonce 3): a call to `to`, or a creation. */
export interface Scenario {
  name: string;
  to?: Uint8Array;
  data: Uint8Array;
  value?: bigint;
  gas?: bigint;
}

const BLOCK = { number: 5n, timestamp: 1_700_000_000n, gasLimit: 30_000_000n };

/** ethereumjs' caches hold every account and slot the oracle wrote or read (the checkpoint keeps them there). */
class OracleState implements SyncState {
  constructor(private readonly sm: MerkleStateManager) {}
  private caches(): any {
    return (this.sm as any)._caches;
  }
  account(addr: Uint8Array) {
    const elem = this.caches().account.get(new Address(addr));
    if (!elem?.accountRLP) return undefined;
    const a = createAccountFromRLP(elem.accountRLP);
    return { nonce: a.nonce, balance: a.balance, codeHash: a.codeHash };
  }
  code(addr: Uint8Array): Uint8Array {
    return this.caches().code.get(new Address(addr))?.code ?? new Uint8Array(0);
  }
  storage(addr: Uint8Array, slot: Uint8Array): Uint8Array {
    const raw = this.caches().storage.get(new Address(addr), slot);
    const v = raw === undefined ? new Uint8Array(0) : (RLP.decode(raw) as Uint8Array);
    const out = new Uint8Array(32);
    out.set(v, 32 - v.length);
    return out;
  }
}

/** Traces `s` on @ethereumjs/vm (runTx) over `pre`, driven as tracing was before the engine ran it. */
export async function traceOnEthereumjs(pre: PreAccount[], s: Scenario, tracer: Tracer): Promise<TraceResult> {
  const common = createChainCommon(CHAIN_ID);
  const sm = new MerkleStateManager({ common, caches: new Caches() });
  await sm.checkpoint();
  for (const p of pre) {
    const a = new Address(p.address);
    await sm.putAccount(a, createAccount({ nonce: p.nonce ?? 0n, balance: p.balance ?? 0n }));
    if (p.code) await sm.putCode(a, p.code);
    for (const [k, v] of p.storage ?? []) {
      const key = new Uint8Array(32);
      key.set(bigintToBytes(k), 32 - bigintToBytes(k).length);
      await sm.putStorage(a, key, bigintToBytes(v));
    }
  }
  const vm = await createVM({ common, stateManager: sm });
  const block = createBlock(
    { header: { ...BLOCK, coinbase: COINBASE, baseFeePerGas: 0n, excessBlobGas: 0n, blobGasUsed: 0n } },
    { common },
  );
  const tx = createTx(
    {
      type: 2,
      nonce: 3n,
      to: s.to,
      value: s.value ?? 0n,
      data: s.data,
      gasLimit: s.gas ?? 1_000_000n,
      maxFeePerGas: 10n,
      maxPriorityFeePerGas: 1n,
      chainId: CHAIN_ID,
    },
    { common },
  ).sign(KEY);
  const env: TxEnv = {
    from: SENDER,
    to: s.to,
    value: tx.value,
    input: tx.data,
    gasLimit: tx.gasLimit,
    gasPrice: 1n,
    intrinsicGas: tx.getIntrinsicGas(),
    blockNumber: BLOCK.number,
    timestamp: BLOCK.timestamp,
    coinbase: COINBASE,
    state: new OracleState(sm),
    isPrecompile: (a) =>
      (vm.evm as never as { getPrecompile(a: Address): unknown }).getPrecompile(new Address(a)) !== undefined,
  };
  const driver = new OracleDriver(vm.evm as never, tracer, env, 0);
  driver.attach(installStepFeed(vm.evm as never));
  try {
    const r = await runTx(vm, { tx, block, skipHardForkValidation: true });
    const err = r.execResult.exceptionError?.error;
    driver.finish({
      gasUsed: r.totalGasSpent,
      failed: err !== undefined,
      returnValue: r.execResult.returnValue,
      error: err === undefined ? undefined : gethErrorText(err),
      createdAddress: r.createdAddress?.bytes,
    });
  } finally {
    driver.detach();
  }
  return tracer.result();
}

/** Traces `s` on Kestrel's engine over `pre` through the production driver (replay.ts runTraced). */
export function traceOnEngine(pre: PreAccount[], s: Scenario, tracer: Tracer): TraceResult {
  const reader = new MemReader();
  for (const p of pre) {
    reader.set(bytesToBigint(p.address), {
      nonce: p.nonce,
      balance: p.balance,
      code: p.code,
      storage: new Map(p.storage ?? []),
    });
  }
  const world = new WorldState(reader);
  const env: BlockEnv = {
    ...BLOCK,
    coinbase: bytesToBigint(COINBASE),
    baseFee: 0n,
    prevRandao: 0n,
    blobBaseFee: blobBaseFee(0n, 'Prague'),
    chainId: CHAIN_ID,
  };
  const tx = testTx({
    from: bytesToBigint(SENDER),
    to: s.to === undefined ? undefined : bytesToBigint(s.to),
    nonce: 3n,
    gasLimit: s.gas ?? 1_000_000n,
    value: s.value ?? 0n,
    data: s.data,
  });
  const opts = { fork: 'Prague' as const, rules: KESTREL_RULES };
  const txEnv = txEnvOf(world, env, tx, opts, 1n, { from: SENDER, to: s.to, coinbase: COINBASE });
  return runTraced({ world, env, tx, opts, txEnv }, tracer, 0).result;
}

/** Where two JSON values first differ (a path and both values), or undefined when they are equal. */
export function firstDifference(got: unknown, want: unknown, path: string): string | undefined {
  if (typeof got !== 'object' || typeof want !== 'object' || got === null || want === null) {
    return got === want ? undefined : `${path}: engine ${JSON.stringify(got)}, ethereumjs ${JSON.stringify(want)}`;
  }
  const keys = new Set([...Object.keys(got), ...Object.keys(want)]);
  for (const k of keys) {
    const d = firstDifference(
      (got as Record<string, unknown>)[k],
      (want as Record<string, unknown>)[k],
      `${path}.${k}`,
    );
    if (d !== undefined) return d;
  }
  return undefined;
}
