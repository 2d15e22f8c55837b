// Figures for the pool (not part of `npm test`): admission throughput into a running kestreld from 10 senders,
// memory of a full pool, and the time to build a block from a full pool.
//   node --import tsx --expose-gc test/bench/txpool-figures.ts [admission|memory|build] [--fsync=true|false|off]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { Wallet } from 'ethers';
import { createChainCommon } from '../../src/app/evm/common.ts';
import { decodeTx } from '../../src/app/evm/validate.ts';
import { testRules } from '../../src/app/evm/validate.testing.ts';
import { setTomlValue } from '../../src/config/appToml.ts';
import { deriveAccounts, DEV_MNEMONIC } from '../../src/keys/devAccounts.ts';
import { TxJournal } from '../../src/mempool/journal.ts';
import { TxPool } from '../../src/mempool/pool.ts';
import { DEV_ACCOUNTS, CHAIN_ID } from '../helpers/accounts.ts';
import { openTestApp } from '../helpers/app.ts';
import { REPO_ROOT, rpcResult, startNode } from '../helpers/node.ts';

const GWEI = 1_000_000_000n;
const what = process.argv[2] ?? 'all';
const fsyncArg = (process.argv.find((a) => a.startsWith('--fsync=')) ?? '--fsync=true').slice(8);
const common = createChainCommon(9000n);
const sink = new Uint8Array(20).fill(0x42);

async function admission(): Promise<void> {
  const PER_SENDER = 400;
  const base = mkdtempSync(join(tmpdir(), 'kestrel-bench-'));
  const home = join(base, 'home');
  spawnSync(process.execPath, ['bin/kestreld.js', 'init', '--dev', '--home', home], { cwd: REPO_ROOT });
  const toml = join(home, 'config', 'app.toml');
  if (fsyncArg === 'off') setTomlValue(toml, 'mempool', 'journal', false);
  else setTomlValue(toml, 'mempool', 'journal-fsync', fsyncArg === 'true');
  const node = await startNode({ home, args: ['--block-time', '1h'] });
  try {
    const signed: string[][] = [];
    for (const a of DEV_ACCOUNTS) {
      const w = new Wallet(a.privateKey);
      const list: string[] = [];
      for (let n = 0; n < PER_SENDER; n++) {
        list.push(
          await w.signTransaction({
            type: 2,
            chainId: CHAIN_ID,
            nonce: n,
            to: '0x' + '42'.repeat(20),
            value: 1n,
            gasLimit: 21_000n,
            maxFeePerGas: 10n * GWEI,
            maxPriorityFeePerGas: GWEI,
          }),
        );
      }
      signed.push(list);
    }
    const t0 = performance.now();
    await Promise.all(
      signed.map(async (list) => {
        for (const raw of list) await rpcResult(node.http, 'eth_sendRawTransaction', [raw]);
      }),
    );
    const ms = performance.now() - t0;
    const st = await rpcResult(node.http, 'txpool_status');
    console.log(
      `admission (journal ${fsyncArg === 'off' ? 'off' : `on, fsync ${fsyncArg}`}): ${10 * PER_SENDER} txs from 10 senders (each sequential, 10 in parallel) in ${ms.toFixed(0)} ms = ${((10 * PER_SENDER) / (ms / 1000)).toFixed(0)} tx/s; status ${JSON.stringify(st)}`,
    );
  } finally {
    await node.dispose();
    rmSync(base, { recursive: true, force: true });
  }
}

/** 5120 pending (10 senders × 512) + 1030 queued, as raw signed txs. */
function fullPoolRaw(): Uint8Array[] {
  const keys = deriveAccounts(DEV_MNEMONIC, 10);
  const out: Uint8Array[] = [];
  for (const k of keys) {
    for (let n = 0n; n < 512n + 103n; n++) {
      const nonce = n < 512n ? n : n + 10n; // the last ones sit behind a gap: queued
      const raw = createFeeMarket1559Tx(
        {
          nonce,
          to: sink,
          value: 1n,
          gasLimit: 21_000n,
          maxFeePerGas: 10n * GWEI,
          maxPriorityFeePerGas: GWEI + (n % 7n),
        },
        { common },
      )
        .sign(k.privateKey)
        .serialize();
      out.push(raw);
    }
  }
  return out;
}

const rules = testRules();

async function memory(): Promise<void> {
  const raws = fullPoolRaw();
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const before = process.memoryUsage().heapUsed;
  const pool = new TxPool({ globalQueue: 1030, accountQueue: 128 });
  for (const raw of raws) pool.add(decodeTx(raw, rules), 0n);
  gc?.();
  gc?.();
  const after = process.memoryUsage().heapUsed;
  const c = pool.counts();
  console.log(
    `memory: pool of ${c.pending} pending + ${c.queued} queued transfers: heap +${((after - before) / 2 ** 20).toFixed(1)} MiB (${((after - before) / (c.pending + c.queued)).toFixed(0)} B/tx, decoded @ethereumjs/tx objects incl.)${gc ? '' : ' (run with --expose-gc for a stable figure)'}`,
  );
}

async function build(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kestrel-bench-build-'));
  const { kv, app } = await openTestApp(join(dir, 'db'));
  try {
    const pool = new TxPool({ globalQueue: 1030, accountQueue: 128 });
    for (const raw of fullPoolRaw()) pool.add(decodeTx(raw, rules), 0n);
    const c0 = pool.counts();
    const t0 = performance.now();
    const txs = pool.executable(app.head.header.gasLimit, { baseFee: app.nextBaseFee(), minGasPrice: 0n });
    const t1 = performance.now();
    const res = await app.finalizeBlock({ txs, time: app.head.header.timestamp + 1n });
    const t2 = performance.now();
    const committed = await app.commit();
    pool.onCommitted(committed, res.rejected);
    const t3 = performance.now();
    console.log(
      `build: pool ${c0.pending} pending + ${c0.queued} queued → block of ${committed.block.txs.length} txs (gas limit ${app.head.header.gasLimit}): select ${(t1 - t0).toFixed(1)} ms, execute+seal ${(t2 - t1).toFixed(0)} ms, commit+prune ${(t3 - t2).toFixed(0)} ms, total ${(t3 - t0).toFixed(0)} ms; pool after ${JSON.stringify(pool.counts())}`,
    );
  } finally {
    await kv.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The journal alone: 4000 records of 115 bytes from 10 concurrent writers (sequential, as RPC clients are), or one. */
async function journal(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kestrel-bench-journal-'));
  try {
    for (const fsync of [true, false]) {
      for (const writers of [10, 1]) {
        const j = await TxJournal.create(join(dir, `j-${fsync}-${writers}`), [], {
          fsync,
          snapshot: () => [],
          liveCount: () => 1_000_000,
        });
        const per = 4000 / writers;
        const t0 = performance.now();
        await Promise.all(
          Array.from({ length: writers }, async () => {
            for (let i = 0; i < per; i++) await j.append({ raw: new Uint8Array(115).fill(i), addedAt: Date.now() });
          }),
        );
        const ms = performance.now() - t0;
        await j.close();
        console.log(
          `journal: fsync ${fsync}, ${writers} writer(s): 4000 appends in ${ms.toFixed(0)} ms = ${(4000 / (ms / 1000)).toFixed(0)}/s (${((ms * 1000) / 4000).toFixed(0)} µs each)`,
        );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (what === 'journal' || what === 'all') await journal();
if (what === 'admission' || what === 'all') await admission();
if (what === 'memory' || what === 'all') await memory();
if (what === 'build' || what === 'all') await build();
process.exit(0);
