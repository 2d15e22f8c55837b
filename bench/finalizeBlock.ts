// CometBFT's FinalizeBlock of blocks whose txs the node has not seen before (a validator catching up, or one whose
// mempool missed them): decoding and sender recovery of 500 txs, execution and the state root, then Commit. Each
// configuration runs in its own process over a fresh LevelDB on the dev genesis; configurations alternate within
// each round. Reports per block the wall time of FinalizeBlock and of Commit, and the main thread's and the
// process's CPU over the measured blocks, and checks every configuration reaches the same app hash. Usage:
//   node --import tsx bench/finalizeBlock.ts [--against <checkout>] [--workers 0,1,2,4,1w] [--blocks 10] [--txs 500]
//     [--rounds 3]
// --against runs another checkout (a build of main) as the first configuration, with its own recovery (none). A
// worker count with a "w" (1w) leaves the whole batch to the workers (the main thread takes no share of it).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { devAccounts, signLegacy } from './lib/tx.ts';
import { flagValue, runChild } from './lib/benchProcess.ts';
import { statCpuMs } from './lib/procCpu.ts';
import { REPO_ROOT } from './nodes/paths.ts';

const args = process.argv.slice(2);
const flag = (name: string, dflt: string): string => flagValue(args, name, dflt);

/** What one configuration's process prints. */
interface ChildResult {
  finalizeMs: number[];
  commitMs: number[];
  mainCpuMs: number;
  processCpuMs: number;
  appHash: string;
}

async function child(root: string, spec: string, txFile: string, warmup: number): Promise<void> {
  const workers = parseInt(spec, 10);
  const { CometApplication } = await import(join(root, 'src/consensus/cometbft/application.ts'));
  const { openTestApp, DEV_GENESIS, DEV_GENESIS_DOC } = await import(join(root, 'test/helpers/app.ts'));
  const { Bank } = await import(join(root, 'src/app/bank/bank.ts'));
  const { BankStore } = await import(join(root, 'src/app/bank/store.ts'));
  const { SenderRecovery } = await import(join(root, 'src/mempool/recovery/workers.ts'));
  const dir = mkdtempSync(join(tmpdir(), 'kestrel-finalize-'));
  try {
    const { kv, state, app } = await openTestApp(join(dir, 'db'));
    const bank = new Bank(await BankStore.open(kv, DEV_GENESIS), state, DEV_GENESIS);
    const mainShareFrom = spec.endsWith('w') ? Infinity : undefined;
    const recovery = workers > 0 ? new SenderRecovery({ workers, minBatch: 1, mainShareFrom }) : undefined;
    await recovery?.start();
    const abci = new CometApplication({
      app,
      appHash: (b: unknown) => bank.appHash(b),
      genesisDoc: DEV_GENESIS_DOC,
      version: 'bench',
      log: () => {},
      ...(recovery ? { recover: (job: unknown) => recovery.recover(job) } : {}),
    });
    abci.initChain({
      chainId: DEV_GENESIS_DOC.chain_id,
      validators: [],
      appStateBytes: new Uint8Array(0),
      initialHeight: 1n,
      time: { seconds: 0n, nanos: 0 },
    });
    const blocks = (JSON.parse(readFileSync(txFile, 'utf8')) as string[][]).map((b) =>
      b.map((h) => Uint8Array.from(Buffer.from(h, 'hex'))),
    );
    const out: ChildResult = { finalizeMs: [], commitMs: [], mainCpuMs: 0, processCpuMs: 0, appHash: '' };
    const self = `/proc/self/task/${process.pid}/stat`;
    let cpu0 = { main: 0, proc: 0 };
    for (const [i, txs] of blocks.entries()) {
      if (i === warmup) cpu0 = { main: statCpuMs(self), proc: statCpuMs('/proc/self/stat') };
      const t0 = performance.now();
      const res = await abci.finalizeBlock({
        txs,
        height: BigInt(i + 1),
        hash: new Uint8Array(32),
        time: { seconds: 1_800_000_000n + BigInt(i), nanos: 0 },
        proposerAddress: new Uint8Array(20).fill(0xab),
        decidedLastCommit: { round: 0, votes: [] },
        misbehavior: [],
        nextValidatorsHash: new Uint8Array(32),
      });
      const t1 = performance.now();
      await abci.commit();
      const t2 = performance.now();
      const failed = res.txResults.filter((r: { code: number }) => r.code !== 0).length;
      if (failed > 0) throw new Error(`block ${i + 1}: ${failed} tx(s) failed`);
      if (i >= warmup) {
        out.finalizeMs.push(t1 - t0);
        out.commitMs.push(t2 - t1);
      }
      out.appHash = Buffer.from(res.appHash).toString('hex');
    }
    out.mainCpuMs = statCpuMs(self) - cpu0.main;
    out.processCpuMs = statCpuMs('/proc/self/stat') - cpu0.proc;
    await recovery?.close();
    await kv.close();
    process.stdout.write(JSON.stringify(out) + '\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function parent(): Promise<void> {
  const against = args.includes('--against') ? resolve(flag('--against', '')) : undefined;
  const workerCounts = flag('--workers', '0,1,2,4').split(',');
  const nBlocks = Number(flag('--blocks', '10'));
  const nTxs = Number(flag('--txs', '500'));
  const rounds = Number(flag('--rounds', '3'));
  const warmup = 2;
  // Value transfers from the ten funded dev accounts, each sender's nonces in order: a block of fresh txs.
  const accounts = devAccounts(10);
  const nonces = accounts.map(() => 0);
  const blocks: string[][] = [];
  for (let b = 0; b < nBlocks + warmup; b++) {
    const txs: string[] = [];
    for (let i = 0; i < nTxs; i++) {
      const k = i % accounts.length;
      const to = '0x' + (b * nTxs + i + 1).toString(16).padStart(40, '0');
      const s = signLegacy(accounts[k]!, 9000n, { nonce: nonces[k]!++, gas: 21_000n, to, value: 1n, data: '0x' });
      txs.push(s.raw.slice(2));
    }
    blocks.push(txs);
  }
  const dir = mkdtempSync(join(tmpdir(), 'kestrel-finalize-txs-'));
  const txFile = join(dir, 'blocks.json');
  writeFileSync(txFile, JSON.stringify(blocks));
  const configs = [
    ...(against ? [{ name: 'A (against)', root: against, workers: '0' }] : []),
    ...workerCounts.map((w) => ({
      name: w.endsWith('w') ? `B, ${parseInt(w, 10)} worker(s), no main share` : `B, ${w} worker(s)`,
      root: REPO_ROOT,
      workers: w,
    })),
  ];
  const results = new Map<string, ChildResult[]>(configs.map((c) => [c.name, []]));
  console.log(
    `${nTxs}-tx blocks, ${nBlocks} measured (+${warmup} warm-up), ${rounds} round(s); load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (let r = 0; r < rounds; r++) {
    for (const c of configs) {
      const res = runChild<ChildResult>('bench/finalizeBlock.ts', c.root, [String(c.workers), txFile, String(warmup)]);
      results.get(c.name)!.push(res);
      console.log(
        `round ${r + 1} ${c.name}: finalize ${median(res.finalizeMs).toFixed(1)} ms/block, commit ${median(res.commitMs).toFixed(1)}, ` +
          `main CPU ${(res.mainCpuMs / nBlocks).toFixed(0)} ms/block, process CPU ${(res.processCpuMs / nBlocks).toFixed(0)}; load ${loadavg()[0]!.toFixed(2)}`,
      );
    }
  }
  const hashes = new Set([...results.values()].flatMap((rs) => rs.map((x) => x.appHash)));
  if (hashes.size !== 1) throw new Error(`app hashes differ across configurations: ${[...hashes].join(' ')}`);
  console.log(`\nevery configuration's final app hash: ${[...hashes][0]}`);
  console.log(
    '\n| node | FinalizeBlock ms/block, median | fastest block | Commit ms/block | main-thread CPU ms/block | process CPU ms/block |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const [name, rs] of results) {
    const fin = rs.map((x) => median(x.finalizeMs));
    const com = rs.map((x) => median(x.commitMs));
    const main = rs.map((x) => x.mainCpuMs / nBlocks);
    const proc = rs.map((x) => x.processCpuMs / nBlocks);
    const cell = (xs: number[]) => `${median(xs).toFixed(0)} [${xs.map((x) => x.toFixed(0)).join(' ')}]`;
    const fastest = Math.min(...rs.flatMap((x) => x.finalizeMs));
    console.log(`| ${name} | ${cell(fin)} | ${fastest.toFixed(0)} | ${cell(com)} | ${cell(main)} | ${cell(proc)} |`);
  }
  console.log(
    `load after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  rmSync(dir, { recursive: true, force: true });
}

if (args[0] === '--child') await child(args[1]!, args[2]!, args[3]!, Number(args[4]));
else await parent();
