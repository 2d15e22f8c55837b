// In-process engine bench (issue 15): Kestrel's EVM beside @ethereumjs/evm on the same calls, and 500-tx blocks.
//   node --import tsx bench/engine.ts [--quick] [--json]   (--json: also one JSON line of the figures, for npm run bench)
// 1. ERC20 balanceOf through executeTransaction (isCall) with warm reader caches and a fresh WorldState per call,
//    beside ethereumjs runCall on a MerkleStateManager holding the same code and slot (its caches warm too).
// 2. 500-tx blocks of value transfers and of ERC20 transfers on one WorldState each (senders recovered
//    beforehand, no state root: the root is the app's).
// 3. The same blocks through the app (KestrelApp.finalizeBlock and commit on LevelDB): execution, state root,
//    receipts, header and the block's store write; beside it the share of the engine-only rate it reaches.
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createEVM } from '@ethereumjs/evm';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, createAddressFromBigInt } from '@ethereumjs/util';
import { executeTransaction, initEngine, WorldState } from '../src/evm/index.ts';
import type { Tx } from '../src/evm/types.ts';
import { hexToBytes, wordToBytes } from '../src/primitives/bytes.ts';
import { MemReader } from '../src/evm/testing/mem-reader.testing.ts';
import { testBlock, testTx } from '../src/evm/testing/engine-inputs.testing.ts';
import { appBlockRates } from './lib/appBlock.ts';
import { compileContracts } from './lib/contracts.ts';

const quick = process.argv.includes('--quick');
await initEngine();

const TOKEN = 0x70c0n;
const DEPLOYER = 0xd0n;
const HOLDERS = 600;
const holder = (i: number): bigint => 0x100000n + BigInt(i);
const block = testBlock({ gasLimit: 60_000_000n, chainId: 9000n });
const opts = { fork: 'Prague' as const, rules: { burnBaseFee: false } };

function tx(from: bigint, to: bigint | undefined, data: Uint8Array, nonce = 0n, value = 0n, gasLimit = 200_000n): Tx {
  return testTx({ from, to, data, nonce, value, gasLimit });
}

function abiCall(selector: string, ...words: bigint[]): Uint8Array {
  const out = new Uint8Array(4 + 32 * words.length);
  out.set(hexToBytes(selector), 0);
  words.forEach((w, i) => out.set(wordToBytes(w), 4 + 32 * i));
  return out;
}

// Deploy the token with HOLDERS holders on the engine itself, then take its runtime code and storage as a pre-state.
const { token: creation } = compileContracts();
const ctor = new Uint8Array(64 + 32 + 32 * HOLDERS);
ctor.set(wordToBytes(64n), 0);
ctor.set(wordToBytes(10n ** 24n), 32);
ctor.set(wordToBytes(BigInt(HOLDERS)), 64);
for (let i = 0; i < HOLDERS; i++) ctor.set(wordToBytes(holder(i)), 96 + 32 * i);
const initcode = new Uint8Array([...hexToBytes(creation), ...ctor]);
const deployWorld = new WorldState(new MemReader().set(DEPLOYER, { balance: 10n ** 20n }));
const dep = executeTransaction(deployWorld, block, tx(DEPLOYER, undefined, initcode, 0n, 0n, 50_000_000n), opts);
if (!dep.ok || dep.result.createdAddress === undefined) throw new Error('token deployment failed');
const created = deployWorld.diff().find((d) => d.address === dep.result.createdAddress)!;
const runtime = created.code!;
const reader = new MemReader().set(TOKEN, { code: runtime, storage: new Map(created.storage) });
for (let i = 0; i < HOLDERS; i++) reader.set(holder(i), { balance: 10n ** 20n });

const BALANCE_OF = '70a08231';
const TRANSFER = 'a9059cbb';

// CPU time of this process (user + system), not wall time: the bench machine is shared, and CPU time is what
// the engine itself costs. Both engines are measured the same way.
function cpuUs(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

function time(n: number, f: (i: number) => void): number {
  const t0 = cpuUs();
  for (let i = 0; i < n; i++) f(i);
  return (cpuUs() - t0) / n;
}

// --- 1. balanceOf ---
const callData = abiCall(BALANCE_OF, holder(7));
const callTx = tx(holder(1), TOKEN, callData);
const check = executeTransaction(new WorldState(reader), block, callTx, { ...opts, isCall: true });
if (!check.ok || check.result.status !== 'success' || check.result.output.length !== 32)
  throw new Error('balanceOf failed');
const N = quick ? 5_000 : 30_000;
time(N, () => executeTransaction(new WorldState(reader), block, callTx, { ...opts, isCall: true }));
const kestrelUs = time(N, () => executeTransaction(new WorldState(reader), block, callTx, { ...opts, isCall: true }));

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
const sm = new MerkleStateManager({ common });
const evm = await createEVM({ common, stateManager: sm });
const tokenAddr = createAddressFromBigInt(TOKEN);
await sm.putAccount(tokenAddr, new Account());
await sm.putCode(tokenAddr, runtime);
for (const [k, v] of created.storage) await sm.putStorage(tokenAddr, wordToBytes(k), wordToBytes(v));
const ejsCall = () =>
  evm.runCall({
    to: tokenAddr,
    caller: createAddressFromBigInt(holder(1)),
    data: callData,
    gasLimit: 200_000n,
    skipBalance: true,
  });
const ejsCheck = await ejsCall();
if (
  ejsCheck.execResult.exceptionError ||
  ejsCheck.execResult.executionGasUsed !== 0n + ejsCheck.execResult.executionGasUsed
) {
  throw new Error('ethereumjs balanceOf failed');
}
const EN = quick ? 200 : 1_000;
for (let i = 0; i < EN / 4; i++) await ejsCall();
const t0 = cpuUs();
for (let i = 0; i < EN; i++) await ejsCall();
const ejsUs = (cpuUs() - t0) / EN;
console.log(
  `balanceOf  kestrel ${kestrelUs.toFixed(2)} µs/call   ethereumjs ${ejsUs.toFixed(1)} µs/call   ratio ${(ejsUs / kestrelUs).toFixed(1)}x (CPU time)   (gas ${check.result.gasUsed})`,
);

// --- 2. 500-tx blocks ---
const BLOCK_TXS = 500;
const ROUNDS = quick ? 4 : 20;
function blockRate(make: (i: number) => Tx): number {
  let total = 0;
  for (let r = -2; r < ROUNDS; r++) {
    const txs = Array.from({ length: BLOCK_TXS }, (_, i) => make(i));
    const t = cpuUs();
    const w = new WorldState(reader);
    for (const t1 of txs) {
      const o = executeTransaction(w, block, t1, opts);
      if (!o.ok || o.result.status !== 'success')
        throw new Error(`block tx failed: ${o.ok ? o.result.status : o.reason}`);
    }
    w.diff();
    if (r >= 0) total += cpuUs() - t;
  }
  return (BLOCK_TXS * ROUNDS) / (total / 1e6);
}
const transfers = blockRate((i) => tx(holder(i), 0xbeef0000n + BigInt(i), new Uint8Array(0), 0n, 1000n, 21_000n));
const erc20 = blockRate((i) => tx(holder(i), TOKEN, abiCall(TRANSFER, 0xbeef0000n + BigInt(i), 5n), 0n, 0n, 100_000n));
console.log(
  `500-tx blocks  value transfers ${Math.round(transfers)} tx/s   ERC20 transfers ${Math.round(erc20)} tx/s   (no state root; CPU time)`,
);

// --- 3. App blocks: the same 500-tx blocks through KestrelApp.finalizeBlock + commit on LevelDB, root included ---
const app = await appBlockRates(quick ? 3 : 10);
if (process.argv.includes('--json'))
  console.log(
    JSON.stringify({
      balanceOfUs: kestrelUs,
      ethereumjsBalanceOfUs: ejsUs,
      blockTransfers: transfers,
      blockErc20: erc20,
      appTransfers: app.transfersCpu,
      appErc20: app.erc20Cpu,
      appTransfersWall: app.transfersWall,
      appErc20Wall: app.erc20Wall,
      appTransfersFinalize: app.transfersFinalizeCpu,
      appErc20Finalize: app.erc20FinalizeCpu,
    }),
  );
const share = (app: number, engine: number): string => `${Math.round((100 * app) / engine)}%`;
console.log(
  `500-tx app blocks  value transfers ${Math.round(app.transfersCpu)} tx/s (${share(app.transfersCpu, transfers)} of the engine)   ERC20 transfers ${Math.round(app.erc20Cpu)} tx/s (${share(app.erc20Cpu, erc20)})   (finalizeBlock + commit: state root and store write; CPU time; wall ${Math.round(app.transfersWall)} / ${Math.round(app.erc20Wall)}; finalizeBlock alone ${Math.round(app.transfersFinalizeCpu)} / ${Math.round(app.erc20FinalizeCpu)})`,
);
