// Scale: grows a dev chain's state (value transfers to fresh addresses, in real blocks, then hardhat_mine for the
// rest of the blocks) and at each quarter of the way prints the curve: value and ERC20 tx/s over JSON-RPC, node CPU
// per tx, eth_getBalance and eth_call rates, RSS, the caches' bytes and disk bytes per account; at the end, restart
// time: shutdown (SIGTERM to exit) and start (spawn to the first answered eth_blockNumber) on the grown home, apart.
// Runs archive and pruned homes one after the other (issue 27 target 6). Each node's stdout and stderr go whole to
// <log-dir>/<mode>-<n>.log (printed at the start), so a failure can be read afterwards.
//   node --import tsx bench/scale.ts --accounts 50000 --blocks 2000 [--modes archive,pruned] [--budget-mb N]
//     [--home-root DIR: homes at DIR/<mode>, kept after the run] [--log-dir DIR] [--restarts N]
//     [--restart-only: no growth, only the restarts of the existing homes under --home-root]
//     [--against DIR: with --restart-only, the restarts alternate between DIR's build (A) and this checkout's (B)]
//     [--pruning-interval N: blocks between a pruned home's sweeps, default 100]
//   node --import tsx bench/scale.ts --compare HOME:ACCOUNTS,HOME:ACCOUNTS [--rounds 3]: grown homes (kept with
//     --home-root) measured against each other in one run, the first as the reference
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { encode as rlp } from '@ethereumjs/rlp';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bareHex, hexToBytes } from '../src/primitives/bytes.ts';
import { directoryBytes } from '../src/metrics/nodeMetrics.ts';
import { CHAIN_ID } from '../test/helpers/accounts.ts';
import { REPO_ROOT } from './nodes/paths.ts';
import { cpuMs, rssMiB } from './nodes/process.ts';
import { launchScaleNode, type ScaleNode } from './lib/scaleNode.ts';
import { balanceOfData, compileContracts, tokenConstructorArgs, transferData } from './lib/contracts.ts';
import { RpcClient } from './lib/rpc.ts';
import { devAccounts, signLegacy, type Account, type SignedTx } from './lib/tx.ts';

const { values } = parseArgs({
  options: {
    accounts: { type: 'string', default: '50000' },
    blocks: { type: 'string', default: '2000' },
    modes: { type: 'string', default: 'archive,pruned' },
    'budget-mb': { type: 'string' },
    // Windows of ~1-2 s on this machine: 1,000 transfers (~0.4 s) and 3,000 reads (~0.2 s) moved the 1M/30k ratios
    // by 0.2-0.3 between runs minutes apart (bench/results/2026-11-30-write-path-quiet.md).
    'measure-txs': { type: 'string', default: '3000' },
    'measure-reads': { type: 'string', default: '30000' },
    'home-root': { type: 'string' },
    'log-dir': { type: 'string' },
    restarts: { type: 'string', default: '3' },
    'restart-only': { type: 'boolean', default: false },
    against: { type: 'string' },
    compare: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    'pruning-interval': { type: 'string', default: '100' },
    points: { type: 'string' },
  },
});
/** The account counts the curve is measured at (default: each quarter of --accounts). */
const POINTS = (values.points ?? '')
  .split(',')
  .filter((p) => p !== '')
  .map(Number);
const RESTARTS = Number(values.restarts);
/** A pruned home keeps the state of its 100 latest blocks and sweeps every --pruning-interval blocks. */
const PRUNED_ARGS = [
  '--pruning',
  'custom',
  '--pruning-keep-recent',
  '100',
  '--pruning-interval',
  values['pruning-interval'],
];
const LOG_DIR = values['log-dir'] ?? mkdtempSync(join(tmpdir(), 'kestrel-scale-logs-'));
mkdirSync(LOG_DIR, { recursive: true });
console.log(`scale: node logs in ${LOG_DIR}`);
const launch = (mode: string, home: string, extra: string[], checkout = REPO_ROOT) =>
  launchScaleNode(LOG_DIR, mode, home, extra, checkout);
if (values['restart-only'] && values['home-root'] === undefined) throw new Error('--restart-only needs --home-root');
if (values.against !== undefined && !values['restart-only']) throw new Error('--against needs --restart-only');
const ACCOUNTS = Number(values.accounts);
const BLOCKS = Number(values.blocks);
const MEASURE_TXS = Number(values['measure-txs']);
const MEASURE_READS = Number(values['measure-reads']);
if (!(ACCOUNTS >= 4) || !(BLOCKS >= 0)) throw new Error('--accounts must be >= 4 and --blocks >= 0');
if (POINTS.length === 0) for (let q = 1; q <= 4; q++) POINTS.push(Math.round((ACCOUNTS * q) / 4));
if (POINTS.some((p, i) => !(p >= 1) || p > ACCOUNTS || (i > 0 && p <= POINTS[i - 1]!)))
  throw new Error('--points must rise and stay within --accounts');
const CHAIN = BigInt(CHAIN_ID);
const SENDERS = devAccounts(10);
const IN_FLIGHT = 32;
/** Growth transfers sent per round (the pool's global slots are 5,120). */
const GROWTH_ROUND = 2_000;
const BATCH = 100;
/** A progress line every this many grown accounts. */
const PROGRESS_EVERY = 50_000;

/** The i-th fresh account: distinct, never a sender. */
const fresh = (i: number): string => '0x5ca1e' + i.toString(16).padStart(35, '0');

/** Node process CPU seconds (user + system). */
const cpuSeconds = (pid: number): number => cpuMs(pid) / 1000;

async function metric(at: string, re: RegExp): Promise<number> {
  const text = await (await fetch(`http://${at}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => re.test(l))
    .reduce((a, l) => a + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

/** Signatures made between two turns of the event loop (each takes ~0.3 ms of CPU). */
const SIGN_SLICE = 50;

/**
 * Signs `n` txs, letting the event loop turn every SIGN_SLICE signatures. Signing thousands at once stalls the loop
 * for seconds, far longer on a loaded machine where this niced process gets a few percent of a core: the node's
 * server (uWS) closes a keep-alive connection after ~10 s idle, and a pooled socket whose FIN this loop has not read
 * yet is taken for the next batch, which fails with undici's "other side closed" (reproduced by blocking a client's
 * loop 14 s between two fetches to a node: 2 of 8 batches failed; 3 s, or 14 s idle but not blocked: none).
 */
async function signSliced(n: number, make: (k: number) => SignedTx): Promise<SignedTx[]> {
  const out: SignedTx[] = [];
  for (let k = 0; k < n; k++) {
    out.push(make(k));
    if (k % SIGN_SLICE === SIGN_SLICE - 1) await new Promise((r) => setImmediate(r));
  }
  return out;
}

/** Posts one JSON-RPC batch of eth_sendRawTransaction; throws on a failed request or any refused tx. */
async function sendBatch(url: string, part: SignedTx[]): Promise<void> {
  const body = part.map((t, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_sendRawTransaction', params: [t.raw] }));
  let res: Array<{ error?: unknown }>;
  try {
    const answer = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    res = (await answer.json()) as Array<{ error?: unknown }>;
  } catch (e) {
    // The time and the cause (undici's socket error) are what the node's log is read against.
    const cause = e instanceof Error && e.cause instanceof Error ? `: ${e.cause.message}` : '';
    throw new Error(`${new Date().toISOString()}: batch send failed: ${String(e)}${cause}`, { cause: e });
  }
  if (!Array.isArray(res))
    throw new Error(`${new Date().toISOString()}: batch send answered ${JSON.stringify(res).slice(0, 300)}`);
  const bad = res.find((r) => r.error !== undefined);
  if (bad) throw new Error(`${new Date().toISOString()}: send failed: ${JSON.stringify(bad.error)}`);
}

/**
 * Sends signed txs and waits until every sender's nonce is mined. One tx per request with `IN_FLIGHT` in flight
 * (batch 1), or in batches of `batch` with one lane per sender, each sending its batches in nonce order one after
 * the other: concurrent batches of one sender would arrive out of order and park its later nonces in the queued
 * pool, whose per-account bound (64) refuses them ("account limit exceeded").
 */
async function sendAndMine(rpc: RpcClient, txs: SignedTx[], batch: number): Promise<number> {
  const t0 = performance.now();
  if (batch === 1) {
    let next = 0;
    const worker = async () => {
      while (next < txs.length) await rpc.call('eth_sendRawTransaction', [txs[next++]!.raw]);
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  } else {
    const lanes = new Map<string, SignedTx[]>();
    for (const t of txs) (lanes.get(t.from) ?? lanes.set(t.from, []).get(t.from)!).push(t);
    await Promise.all(
      [...lanes.values()].map(async (lane) => {
        lane.sort((a, b) => a.nonce - b.nonce);
        for (let i = 0; i < lane.length; i += batch) await sendBatch(rpc.url, lane.slice(i, i + batch));
      }),
    );
  }
  const last = new Map<string, number>();
  for (const t of txs) last.set(t.from, Math.max(last.get(t.from) ?? 0, t.nonce));
  for (const [from, nonce] of last) {
    while (Number(BigInt(await rpc.call<string>('eth_getTransactionCount', [from, 'latest']))) <= nonce) {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  return (performance.now() - t0) / 1000;
}

/** Requests per second of `n` calls made by `IN_FLIGHT` concurrent clients. */
async function readRate(rpc: RpcClient, n: number, make: (i: number) => [string, unknown[]]): Promise<number> {
  let i = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (i < n) {
      const [m, p] = make(i++);
      await rpc.call(m, p);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return n / ((performance.now() - t0) / 1000);
}

interface Checkpoint {
  accounts: number;
  blocks: number;
  valueTps: number;
  erc20Tps: number;
  cpuUsPerValueTx: number;
  cpuUsPerErc20Tx: number;
  balanceRps: number;
  callRps: number;
  rssMiB: number;
  cacheMiB: number;
  diskBytesPerAccount: number;
}

interface Restart {
  /** 'A' (--against's build) or 'B' (this checkout's). */
  build: 'A' | 'B';
  shutdownMs: number;
  startMs: number;
  startCpuMs: number;
}

/** Stops and starts the node `RESTARTS` times on its home; returns the last node (running) and each restart's figures. */
async function restarts(mode: string, node: ScaleNode, home: string, extra: string[]) {
  const out: Restart[] = [];
  for (let r = 0; r < RESTARTS; r++) {
    const shutdownMs = await node.stop();
    const build = values.against !== undefined && r % 2 === 0 ? 'A' : 'B';
    node = await launch(mode, home, extra, build === 'A' ? values.against : REPO_ROOT);
    out.push({ build, shutdownMs, startMs: node.startMs, startCpuMs: node.startCpuMs });
    console.log(
      `scale ${mode}: restart ${r + 1} (${build}): shutdown ${shutdownMs.toFixed(0)} ms, start to first answer ` +
        `${node.startMs.toFixed(0)} ms (CPU ${node.startCpuMs.toFixed(0)} ms)`,
    );
  }
  return { node, restarts: out };
}

async function runMode(mode: 'archive' | 'pruned'): Promise<{ points: Checkpoint[]; restarts: Restart[] }> {
  const extra: string[] = [];
  if (mode === 'pruned') extra.push(...PRUNED_ARGS);
  if (values['budget-mb'] !== undefined) extra.push('--cache.budget-mb', values['budget-mb']);
  const root = values['home-root'] ?? mkdtempSync(join(tmpdir(), 'kestrel-scale-'));
  const home = join(root, mode);
  if (values['restart-only']) {
    if (!existsSync(home)) throw new Error(`--restart-only: no home at ${home}`);
    let node = await launch(mode, home, extra);
    try {
      const r = await restarts(mode, node, home, extra);
      node = r.node;
      return { points: [], restarts: r.restarts };
    } finally {
      await node.stop();
    }
  }
  if (existsSync(home)) throw new Error(`${home} exists: grow on a new home (or pass --restart-only)`);
  let node = await launch(mode, home, extra);
  try {
    // hardhat_mine of hundreds of blocks runs the pruner's sweeps inside one call: allow it minutes.
    const rpc = new RpcClient(node.url, 300_000);
    const sign = signer(new Map<string, number>(SENDERS.map((a) => [a.address, 0])));
    const code =
      compileContracts().token +
      tokenConstructorArgs(
        SENDERS.map((a) => a.address),
        10n ** 24n,
      );
    const deploy = sign(SENDERS[0]!, null, code, 3_000_000n);
    await sendAndMine(rpc, [deploy], 1);
    const token = (await rpc.call<{ contractAddress: string }>('eth_getTransactionReceipt', [deploy.hash]))
      .contractAddress;
    const points: Checkpoint[] = [];
    let grown = 0;
    for (const target of POINTS) {
      // Grow to the point's accounts, in rounds of value transfers to fresh addresses (each round fills blocks).
      while (grown < target) {
        const n = Math.min(GROWTH_ROUND, target - grown);
        const txs = await signSliced(n, (k) => sign(SENDERS[k % 10]!, fresh(grown + k), '0x', 21_000n, 1n));
        await sendAndMine(rpc, txs, BATCH);
        grown += n;
        if (grown % PROGRESS_EVERY === 0)
          console.log(`scale ${mode}: ${grown} accounts at ${new Date().toISOString()}`);
      }
      const head = Number(BigInt(await rpc.call<string>('eth_blockNumber')));
      const wantBlocks = Math.round((BLOCKS * target) / ACCOUNTS);
      if (head < wantBlocks) await mineTo(rpc, head, wantBlocks);
      const p = await measure(node, rpc, home, sign, token, grown);
      points.push(p);
      console.log(
        `scale ${mode}: ${JSON.stringify(p, (_k, v: unknown) => (typeof v === 'number' ? +v.toFixed(1) : v))}`,
      );
    }
    rpc.close();
    const r = await restarts(mode, node, home, extra);
    node = r.node;
    return { points, restarts: r.restarts };
  } finally {
    await node.stop();
    if (values['home-root'] === undefined) rmSync(root, { recursive: true, force: true });
  }
}

/** Signs a tx from `a` with its next nonce. */
type Signer = (a: Account, to: string | null, data: string, gas: bigint, value?: bigint) => SignedTx;

/** A Signer over these next nonces. */
function signer(nonces: Map<string, number>): Signer {
  return (a, to, data, gas, value = 0n) => {
    const nonce = nonces.get(a.address)!;
    nonces.set(a.address, nonce + 1);
    return signLegacy(a, CHAIN, { nonce, gas, to, value, data });
  };
}

/**
 * One point of the curve on a running node: value transfers to grown accounts, then ERC20 transfers, each tx its own
 * request (32 in flight) and timed until mined with the node's CPU; eth_getBalance of random grown accounts and
 * eth_call balanceOf; RSS, the caches' bytes and the disk per account.
 */
async function measure(
  node: ScaleNode,
  rpc: RpcClient,
  home: string,
  sign: Signer,
  token: string,
  grown: number,
): Promise<Checkpoint> {
  const pid = node.pid;
  // Measure: value transfers to grown accounts, then ERC20 transfers, each tx its own request (32 in flight).
  const value = await signSliced(MEASURE_TXS, (k) =>
    sign(SENDERS[k % 10]!, fresh((k * 7919) % grown), '0x', 21_000n, 1n),
  );
  let cpu0 = cpuSeconds(pid);
  const valueSeconds = await sendAndMine(rpc, value, 1);
  const cpuValue = cpuSeconds(pid) - cpu0;
  const erc20 = await signSliced(MEASURE_TXS, (k) =>
    sign(SENDERS[k % 10]!, token, transferData(fresh((k * 104729) % grown), 1n), 100_000n),
  );
  cpu0 = cpuSeconds(pid);
  const erc20Seconds = await sendAndMine(rpc, erc20, 1);
  const cpuErc20 = cpuSeconds(pid) - cpu0;
  const balanceRps = await readRate(rpc, MEASURE_READS, (i) => [
    'eth_getBalance',
    [fresh((i * 2_654_435_761) % grown), 'latest'],
  ]);
  const callRps = await readRate(rpc, MEASURE_READS, (i) => [
    'eth_call',
    [{ to: token, data: balanceOfData(SENDERS[i % 10]!.address) }, 'latest'],
  ]);
  const disk = await directoryBytes(join(home, 'data'));
  return {
    accounts: grown,
    blocks: Number(BigInt(await rpc.call<string>('eth_blockNumber'))),
    valueTps: MEASURE_TXS / valueSeconds,
    erc20Tps: MEASURE_TXS / erc20Seconds,
    cpuUsPerValueTx: (cpuValue / MEASURE_TXS) * 1e6,
    cpuUsPerErc20Tx: (cpuErc20 / MEASURE_TXS) * 1e6,
    balanceRps,
    callRps,
    rssMiB: rssMiB(pid),
    cacheMiB: (await metric(node.metricsAt, /^kestrel_cache_bytes\{/)) / 1048576,
    diskBytesPerAccount: disk / grown,
  };
}

/** Mines empty blocks up to `want` in calls of at most MINE_STEP blocks, so no one request runs for minutes. */
async function mineTo(rpc: RpcClient, head: number, want: number): Promise<void> {
  for (let at = head; at < want;) {
    const n = Math.min(MINE_STEP, want - at);
    await rpc.call('hardhat_mine', ['0x' + n.toString(16)]);
    at += n;
  }
}
const MINE_STEP = 1_000;

/**
 * --compare: the curve's end points measured against each other in one run. Every home's node runs at once, and each
 * round measures them one after the other, so a loaded machine weighs on all of them alike; prints each home's
 * medians and the ratio of the others to the first.
 */
async function compare(spec: string, rounds: number): Promise<void> {
  const homes = spec.split(',').map((h) => {
    const [home, accounts] = h.split(':') as [string, string];
    if (!existsSync(home) || !(Number(accounts) >= 1)) throw new Error(`--compare: want HOME:ACCOUNTS, got ${h}`);
    return { home, accounts: Number(accounts) };
  });
  // The token is the first tx of a grown home: SENDERS[0]'s CREATE at nonce 0.
  const token = '0x' + bareHex(keccak_256(rlp([hexToBytes(SENDERS[0]!.address), new Uint8Array(0)]))).slice(24);
  const nodes: Array<{ home: string; accounts: number; node: ScaleNode; rpc: RpcClient; sign: Signer }> = [];
  try {
    for (const { home, accounts } of homes) {
      const node = await launch('compare', home, /pruned/.test(home) ? PRUNED_ARGS : []);
      const rpc = new RpcClient(node.url, 300_000);
      const nonces = new Map<string, number>();
      for (const a of SENDERS)
        nonces.set(a.address, Number(BigInt(await rpc.call<string>('eth_getTransactionCount', [a.address, 'latest']))));
      if ((await rpc.call<string>('eth_getCode', [token, 'latest'])) === '0x') throw new Error(`${home}: no token`);
      nodes.push({ home, accounts, node, rpc, sign: signer(nonces) });
    }
    const got = nodes.map(() => [] as Checkpoint[]);
    for (let r = 0; r < rounds; r++) {
      for (const [i, n] of nodes.entries()) {
        const p = await measure(n.node, n.rpc, n.home, n.sign, token, n.accounts);
        got[i]!.push(p);
        console.log(
          `compare round ${r + 1}, ${n.home}: ${JSON.stringify(p, (_k, v: unknown) => (typeof v === 'number' ? +v.toFixed(1) : v))}`,
        );
      }
    }
    const keys = [
      'valueTps',
      'erc20Tps',
      'cpuUsPerValueTx',
      'cpuUsPerErc20Tx',
      'balanceRps',
      'callRps',
      'rssMiB',
      'cacheMiB',
    ] as const;
    const medians = got.map((ps) => Object.fromEntries(keys.map((k) => [k, median(ps.map((p) => p[k]))])));
    console.log(
      `\n# Compare, ${rounds} rounds (load average at the end ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')})\n`,
    );
    console.log(`| home | accounts | blocks | ${keys.join(' | ')} |`);
    console.log(`| --- | --- | --- | ${keys.map(() => '---').join(' | ')} |`);
    for (const [i, n] of nodes.entries())
      console.log(
        `| ${n.home} | ${n.accounts} | ${got[i]!.at(-1)!.blocks} | ${keys.map((k) => medians[i]![k]!.toFixed(1)).join(' | ')} |`,
      );
    for (const [i, n] of nodes.entries())
      if (i > 0)
        console.log(
          `| ratio ${n.accounts} / ${nodes[0]!.accounts} | | | ${keys.map((k) => (medians[i]![k]! / medians[0]![k]!).toFixed(2)).join(' | ')} |`,
        );
  } finally {
    for (const n of nodes) {
      n.rpc.close();
      await n.node.stop();
    }
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
if (values.compare !== undefined) {
  await compare(values.compare, Number(values.rounds));
  process.exit(0);
}
const started = new Date().toISOString();
const out: string[] = [];
for (const mode of values.modes.split(',') as Array<'archive' | 'pruned'>) {
  const { points, restarts: rs } = await runMode(mode);
  out.push(
    `### ${mode}`,
    '',
    '| accounts | blocks | value tx/s | ERC20 tx/s | CPU µs/value tx | CPU µs/ERC20 tx | eth_getBalance/s | eth_call/s | RSS MiB | caches MiB | disk B/account |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...points.map(
      (p) =>
        `| ${p.accounts} | ${p.blocks} | ${p.valueTps.toFixed(0)} | ${p.erc20Tps.toFixed(0)} | ${p.cpuUsPerValueTx.toFixed(0)} | ` +
        `${p.cpuUsPerErc20Tx.toFixed(0)} | ${p.balanceRps.toFixed(0)} | ${p.callRps.toFixed(0)} | ${p.rssMiB.toFixed(0)} | ` +
        `${p.cacheMiB.toFixed(1)} | ${p.diskBytesPerAccount.toFixed(0)} |`,
    ),
    '',
    ...(['A', 'B'] as const)
      .map((b) => rs.filter((r) => r.build === b))
      .filter((xs) => xs.length > 0)
      .map(
        (xs) =>
          `Restarts${values.against === undefined ? '' : ` of build ${xs[0]!.build}`} (${xs.length}; SIGTERM to exit, ` +
          `then spawn to the first answered eth_blockNumber): shutdown ${xs.map((r) => r.shutdownMs.toFixed(0)).join(', ')} ms; ` +
          `start ${xs.map((r) => r.startMs.toFixed(0)).join(', ')} ms (median ${median(xs.map((r) => r.startMs)).toFixed(0)} ms; ` +
          `CPU ${xs.map((r) => r.startCpuMs.toFixed(0)).join(', ')} ms, median ${median(xs.map((r) => r.startCpuMs)).toFixed(0)}).\n`,
      ),
  );
}
console.log(
  `# Scale, ${started} (load average at the end ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')})\n`,
);
console.log(out.join('\n'));
