// Figures for eth_getLogs (not part of `npm test`). Builds a 100,000-block chain in-process by driving
// KestrelApp (finalizeBlock/commit) with the log index wired exactly as main.ts wires it, then times log queries
// (index lookup + receipt reads + wire formatting + JSON.stringify, i.e. the server side of eth_getLogs).
//   node --import tsx test/bench/logs-figures.ts [blocks=100000]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { Address, createContractAddress } from '@ethereumjs/util';
import { KestrelApp } from '../../src/app/app.ts';
import type { ExecTx } from '../../src/app/evm/executor.ts';
import { createFastKeccak, createSharedCommon } from '../../src/app/evm/common.ts';
import { makeGenesisDoc, parseGenesis } from '../../src/app/genesis.ts';
import { StateDb } from '../../src/app/state/stateDb.ts';
import { LogIndex } from '../../src/filters/logIndex.ts';
import { LogQuery } from '../../src/filters/logQuery.ts';
import { deriveAccounts, DEV_MNEMONIC } from '../../src/keys/devAccounts.ts';
import { hexToBytes } from '../../src/primitives/hex.ts';
import { formatLogEntry } from '../../src/rpc/format/log.ts';
import { ChainStore } from '../../src/store/chainStore.ts';
import { KvStore } from '../../src/store/kv.ts';
import { emitManyData, emitterContract, pongData } from '../helpers/emitter.ts';
import { execTxOf } from '../../src/app/evm/execTx.testing.ts';

const BLOCKS = Number(process.argv[2] ?? 100_000);
const DENSE = 10_000; // the last DENSE blocks each carry 20 logs
const GWEI = 1_000_000_000n;
const PONG = hexToBytes(
  '0x' + Buffer.from(emitterContract().iface.getEvent('Pong')!.topicHash.slice(2), 'hex').toString('hex'),
);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kestrel-logs-bench-'));
  const keccak = await createFastKeccak();
  const common = createSharedCommon(9000n, keccak);
  const kv = await KvStore.open(join(dir, 'db'));
  const chain = new ChainStore(kv, common);
  const state = new StateDb(kv, common);
  const genesis = parseGenesis(
    makeGenesisDoc({
      chainId: 'kestrel_9000-1',
      evmDenom: 'akestrel',
      prefix: 'kestrel',
      dev: true,
      now: new Date('2024-01-01T00:00:00Z'),
    }),
    'kestrel',
  );
  const app = await KestrelApp.open({
    kv,
    chain,
    state,
    common,
    genesis,
    evmChainId: 9000n,
    minGasPrice: 0n,
    etherbase: new Uint8Array(20).fill(0xee),
  });
  const index = new LogIndex(kv);
  await index.catchUp(app.head.number, (n) => chain.receipts(n));
  app.addIndexer((c) => index.blockOps(c.block.number, c.receipts));
  const [noiseKey, targetKey] = deriveAccounts(DEV_MNEMONIC, 2);
  const nonces = new Map<string, bigint>();
  const tx = (from: typeof noiseKey, o: { to?: Uint8Array; data: Uint8Array; gas: bigint }): ExecTx => {
    const k = Buffer.from(from!.address).toString('hex');
    const nonce = nonces.get(k) ?? 0n;
    nonces.set(k, nonce + 1n);
    const t = createFeeMarket1559Tx(
      { nonce, to: o.to, data: o.data, gasLimit: o.gas, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: 0n },
      { common },
    ).sign(from!.privateKey);
    return execTxOf(t, from!.address);
  };
  let time = genesis.time;
  const block = async (txs: ExecTx[]) => {
    time += 1n;
    const r = await app.finalizeBlock({ txs, time });
    if (r.rejected.length) throw new Error(`rejected: ${r.rejected[0]!.error}`);
    await app.commit();
  };
  const bytecode = hexToBytes(emitterContract().bytecode);
  await block([tx(noiseKey, { data: bytecode, gas: 1_000_000n }), tx(targetKey, { data: bytecode, gas: 1_000_000n })]);
  const noise = createContractAddress(new Address(noiseKey!.address), 0n).bytes;
  const target = createContractAddress(new Address(targetKey!.address), 0n).bytes;
  const t0 = performance.now();
  let targets = 0;
  const sparseEnd = BLOCKS - DENSE;
  for (let n = Number(app.head.number) + 1; n <= BLOCKS; n++) {
    const txs: ExecTx[] = [];
    if (n > sparseEnd) txs.push(tx(noiseKey, { to: noise, data: hexToBytes(emitManyData(20)), gas: 400_000n }));
    else if (n % 10 === 0) txs.push(tx(noiseKey, { to: noise, data: hexToBytes(emitManyData(10)), gas: 300_000n }));
    if (n % 300 === 0) {
      txs.push(tx(targetKey, { to: target, data: hexToBytes(pongData(n)), gas: 100_000n }));
      targets++;
    }
    await block(txs);
    if (n % 10_000 === 0) console.error(`built ${n} blocks in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  const buildS = (performance.now() - t0) / 1000;
  const logs = new LogQuery(chain, index, () => app.head.number, { blockRangeCap: 0, logsCap: 0 });
  const time5 = (label: string, f: () => unknown[]) => {
    const runs: number[] = [];
    let count = 0;
    for (let i = 0; i < 5; i++) {
      const s = performance.now();
      const out = f();
      JSON.stringify(out);
      runs.push(performance.now() - s);
      count = out.length;
    }
    runs.sort((a, b) => a - b);
    console.log(
      `${label}: ${count} logs, first ${runs[runs.length - 1]!.toFixed(1)} ms (cold), median ${runs[2]!.toFixed(1)} ms`,
    );
  };
  console.log(
    `chain: ${BLOCKS} blocks built in ${buildS.toFixed(0)} s; ${targets} target logs, last ${DENSE} blocks with 20 logs each`,
  );
  const q = (c: Parameters<LogQuery['getLogs']>[0]) => () => logs.getLogs(c).map(formatLogEntry);
  time5(
    `selective (address) over 0..${BLOCKS}`,
    q({
      addresses: [target],
      topics: [],
      fromBlock: { kind: 'number', number: 0n },
      toBlock: { kind: 'tag', tag: 'latest' },
    }),
  );
  time5(
    `selective (topic0 Pong) over 0..${BLOCKS}`,
    q({
      addresses: [],
      topics: [[PONG]],
      fromBlock: { kind: 'number', number: 0n },
      toBlock: { kind: 'tag', tag: 'latest' },
    }),
  );
  const from = { kind: 'number' as const, number: BigInt(BLOCKS - DENSE + 1) };
  time5(
    `dense: all logs of the last ${DENSE} blocks`,
    q({ addresses: [], topics: [], fromBlock: from, toBlock: { kind: 'tag', tag: 'latest' } }),
  );
  const word = new Uint8Array(32);
  word[31] = 7;
  time5(
    `dense: topic1 = 7 (1 in 20 logs) over the last ${DENSE} blocks`,
    q({ addresses: [], topics: [null, [word]], fromBlock: from, toBlock: { kind: 'tag', tag: 'latest' } }),
  );
  await kv.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
