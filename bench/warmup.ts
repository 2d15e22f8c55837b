// Consecutive write batches on one node process (the write group's shape: WRITE_SENDERS senders, each awaiting its
// receipt), each batch's tx/s, the node's CPU per mined tx (process and main thread) and blocks: how a fresh
// process's rate and cost move as it warms up. Usage:
//   [KIND=erc20|transfer] [N=1000] [BATCHES=6] node --import tsx bench/warmup.ts <launcher|anvil|anvil-prune|hardhat>
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileContracts, tokenConstructorArgs } from './lib/contracts.ts';
import { RpcClient } from './lib/rpc.ts';
import { devAccounts } from './lib/tx.ts';
import { STARTERS } from './nodes/index.ts';
import { kestrelStart } from './nodes/kestrel.ts';
import { REPO_ROOT } from './nodes/paths.ts';
import { spawnNode } from './nodes/process.ts';
import type { RunningNode } from './nodes/types.ts';
import { deploy, type Chain } from './workloads/chain.ts';
import { sendAll } from './workloads/send.ts';
import { fundSenders, WRITE_SENDERS, writeTxs } from './workloads/writes.ts';

const target = process.argv[2];
if (!target) throw new Error('usage: bench/warmup.ts <launcher|anvil|anvil-prune|hardhat>');
const kind = process.env.KIND === 'transfer' ? 'transfer' : 'erc20';
const n = Number(process.env.N ?? 1000);
const batches = Number(process.env.BATCHES ?? 6);

/** User + system CPU in ms of /proc/<pid>[/task/<tid>]/stat. */
function statCpuMs(path: string): number {
  const f = readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

const base = mkdtempSync(join(tmpdir(), 'kestrel-warmup-'));
let node: { url: string; pid: number; stop(): Promise<void> };
if (target === 'anvil' || target === 'anvil-prune' || target === 'hardhat') {
  const peer: RunningNode = await STARTERS[target]();
  node = peer;
} else {
  // launcher[+flag...]; JOURNAL_FSYNC=false sets [mempool] journal-fsync in the home's app.toml (a first start
  // creates the home).
  const [launcher, ...flags] = target.split('+') as [string, ...string[]];
  const home = join(base, 'home');
  const { url, args } = await kestrelStart(launcher, home, flags);
  // NODE_FLAGS: node/V8 flags for the kestreld process (e.g. --always-sparkplug).
  const nodeFlags = (process.env.NODE_FLAGS ?? '').split(' ').filter((f) => f !== '');
  const start = () => spawnNode('kestrel', process.execPath, [...nodeFlags, ...args], url, { cwd: REPO_ROOT });
  if (process.env.JOURNAL_FSYNC === 'false' || process.env.HEAP_GROWTH) {
    await (await start()).stop();
    const toml = join(home, 'config', 'app.toml');
    let text = readFileSync(toml, 'utf8');
    if (process.env.JOURNAL_FSYNC === 'false') text = text.replace('journal-fsync = true', 'journal-fsync = false');
    if (process.env.HEAP_GROWTH)
      text = text.replace('heap-growth-percent = 20', `heap-growth-percent = ${process.env.HEAP_GROWTH}`);
    writeFileSync(toml, text);
  }
  node = { url, ...(await start()) };
}
const client = new RpcClient(node.url, 60_000, 8);
try {
  const chain: Chain = {
    node: { name: 'kestrel', url: node.url } as RunningNode,
    client,
    chainId: BigInt(await client.call<string>('eth_chainId')),
  };
  const senders = devAccounts(WRITE_SENDERS);
  await fundSenders(chain, senders[0]!, senders);
  const code = compileContracts();
  const token = await deploy(
    chain,
    senders[0]!,
    code.token +
      tokenConstructorArgs(
        senders.map((a) => a.address),
        10n ** 30n,
      ),
  );
  for (let b = 0; b < batches; b++) {
    const txs = await writeTxs(chain, { kind }, senders, n, token);
    const h0 = Number(await client.call<string>('eth_blockNumber'));
    const p0 = statCpuMs(`/proc/${node.pid}/stat`);
    const m0 = statCpuMs(`/proc/${node.pid}/task/${node.pid}/stat`);
    const o = await sendAll(node.url, txs, {
      mode: 'awaited',
      inflight: WRITE_SENDERS,
      stallMs: 15_000,
      maxMs: 120_000,
      requestTimeoutMs: 10_000,
    });
    const p1 = statCpuMs(`/proc/${node.pid}/stat`);
    const m1 = statCpuMs(`/proc/${node.pid}/task/${node.pid}/stat`);
    const blocks = Number(await client.call<string>('eth_blockNumber')) - h0;
    const per = (ms: number) => ((ms * 1000) / Math.max(o.mined, 1)).toFixed(0);
    console.log(
      `${target} ${kind} batch ${b + 1}: ${(o.mined / o.seconds).toFixed(0)} tx/s, ${o.mined}/${o.total} mined, CPU ${per(p1 - p0)} us/tx (main ${per(m1 - m0)}), ${blocks} blocks, ${(o.receiptPolls / Math.max(o.mined, 1)).toFixed(1)} polls/tx, load ${loadavg()[0]!.toFixed(1)}`,
    );
  }
} finally {
  client.close();
  await node.stop();
  rmSync(base, { recursive: true, force: true });
}
