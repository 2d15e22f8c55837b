// Join by state sync vs join by replay from genesis, on one long chain (issue 19 item 4). Four validators make
// --blocks blocks while senders transfer to a fresh account in every tx (the state grows and churns all along);
// validators snapshot every --interval blocks. Then a 5th node joins by block sync from genesis (replay) and,
// once it is stopped, a 6th joins by CometBFT state sync; both are timed from the spawn of the app to "caught up"
// (CometBFT not catching up, and the app's eth_blockNumber at the validators' height at spawn). The phases of each
// join are read from the joiner's CometBFT and Kestrel logs. Figures go to bench/results/<date>-statesync.json.
//   nice node --import tsx bench/stateSync.ts [--blocks 2000] [--interval 100] [--timeout-commit 100ms] [--senders 6]
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Wallet } from 'ethers';
import { homePaths } from '../src/node/home.ts';
import { setTomlValue } from '../src/config/appToml.ts';
import { nodeFiles } from '../src/testnet/manifest.ts';
import { CHAIN_ID, DEV_ACCOUNTS } from '../test/helpers/accounts.ts';
import { cometRpc, CometNet, CometNode, freePortBlock } from '../test/helpers/cometbft.ts';
import { REPO_ROOT, rpcResult, sleep, waitFor } from '../test/helpers/node.ts';

const { values: args } = parseArgs({
  options: {
    blocks: { type: 'string', default: '2000' },
    interval: { type: 'string', default: '100' },
    'timeout-commit': { type: 'string', default: '100ms' },
    senders: { type: 'string', default: '6' },
    out: { type: 'string' },
    keep: { type: 'boolean', default: false }, // keep the testnet directory (logs) after the run
  },
});
const BLOCKS = Number(args.blocks);
const INTERVAL = Number(args.interval);
const TIMEOUT_COMMIT = args['timeout-commit']!;
const SENDERS = Number(args.senders);
if (!(BLOCKS > INTERVAL && INTERVAL > 0 && SENDERS > 0 && SENDERS < DEV_ACCOUNTS.length))
  throw new Error('need --blocks > --interval > 0 and 0 < --senders < 10');

const log = (s: string) => process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${s}\n`);
const load = () => loadavg().map((x) => Number(x.toFixed(2)));

/** Transfers from SENDERS dev accounts, each to a new account, nonces kept here; one tx per sender per round. */
function startLoad(url: string): { stop(): Promise<number> } {
  let running = true;
  let sent = 0;
  const done = (async () => {
    const fee = BigInt(await rpcResult<string>(url, 'eth_gasPrice'));
    const tip = BigInt(await rpcResult<string>(url, 'eth_maxPriorityFeePerGas'));
    const wallets = DEV_ACCOUNTS.slice(1, 1 + SENDERS).map((a) => new Wallet(a.privateKey));
    const nonces = new Map<string, number>();
    let k = 0;
    while (running) {
      await Promise.all(
        wallets.map(async (w) => {
          try {
            let nonce = nonces.get(w.address);
            if (nonce === undefined)
              nonce = Number(await rpcResult<string>(url, 'eth_getTransactionCount', [w.address, 'pending']));
            const to = '0x' + (0x10_0000 + k++).toString(16).padStart(40, '0');
            const raw = await w.signTransaction({
              type: 2,
              chainId: BigInt(CHAIN_ID),
              nonce,
              to,
              value: BigInt(k),
              gasLimit: 21_000n,
              maxFeePerGas: fee * 4n + tip,
              maxPriorityFeePerGas: tip,
            });
            await rpcResult(url, 'eth_sendRawTransaction', [raw]);
            nonces.set(w.address, nonce + 1);
            sent++;
          } catch {
            nonces.delete(w.address); // read the pending nonce again next round
          }
        }),
      );
      await sleep(150);
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      return sent;
    },
  };
}

/** utime + stime of a process in ms (Linux /proc; clock ticks of 10 ms). */
function cpuMs(pid: number | undefined): number {
  if (pid === undefined || !existsSync(`/proc/${pid}/stat`)) return NaN;
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

/** Milliseconds since the epoch of CometBFT's plain log stamp `I[2026-11-26|04:05:01.123]`. */
function stampOf(line: string): number | undefined {
  const m = /^[A-Z]\[(\d{4}-\d\d-\d\d)\|(\d\d:\d\d:\d\d\.\d{3})\]/.exec(line);
  return m ? Date.parse(`${m[1]}T${m[2]}Z`) : undefined;
}

/** Seconds from `t0` to the first (or last) log line containing each marker. */
function phases(file: string, t0: number, markers: Array<[string, string, 'first' | 'last']>): Record<string, number> {
  const lines = readFileSync(file, 'utf8').split('\n');
  const out: Record<string, number> = {};
  for (const [name, text, which] of markers) {
    const hits = lines.filter((l) => l.includes(text));
    const l = which === 'first' ? hits[0] : hits.at(-1);
    const t = l === undefined ? undefined : stampOf(l);
    if (t !== undefined) out[name] = Number(((t - t0) / 1000).toFixed(2));
  }
  return out;
}

/** Starts `n` and waits until it has caught up to the validators' height at its spawn. */
async function joinNode(n: CometNode, v: CometNode): Promise<Record<string, unknown>> {
  const target = (await v.height())!;
  const loadBefore = load();
  const t0 = Date.now();
  await n.start();
  await n.waitCaughtUp(target, 3_600_000);
  const ms = Date.now() - t0;
  const status = await cometRpc(n.rpc, 'status');
  return {
    targetHeight: target,
    joinSeconds: Number((ms / 1000).toFixed(2)),
    cpuSeconds: {
      app: Number((cpuMs(n.app?.pid) / 1000).toFixed(2)),
      cometbft: Number((cpuMs(n.comet?.pid) / 1000).toFixed(2)),
    },
    earliestBlockHeight: Number(status.sync_info.earliest_block_height),
    loadavg: { before: loadBefore, after: load() },
    t0,
  };
}

const COMET_MARKERS: Array<[string, string, 'first' | 'last']> = [
  ['stateSyncStarted', 'Starting state sync', 'first'],
  ['discoveryStarted', 'Discovering snapshots', 'first'],
  ['snapshotOffered', 'Offering snapshot to ABCI app', 'first'],
  ['lastChunkApplied', 'Applied snapshot chunk to ABCI app', 'last'],
  ['snapshotRestored', 'Snapshot restored', 'first'],
  ['switchedToConsensus', 'Time to switch to consensus reactor!', 'first'],
];

async function main(): Promise<void> {
  const base = await freePortBlock(6);
  const net = CometNet.create({ validators: 4, basePort: base, args: ['--timeout-commit', TIMEOUT_COMMIT] });
  const result: Record<string, unknown> = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model },
    cometbft: readFileSync(join(REPO_ROOT, 'cometbft.version'), 'utf8').trim(),
    config: {
      validators: 4,
      blocks: BLOCKS,
      snapshotInterval: INTERVAL,
      timeoutCommit: TIMEOUT_COMMIT,
      senders: SENDERS,
    },
  };
  try {
    for (const n of net.nodes) {
      const toml = homePaths(join(net.dir, n.spec.appHome)).appToml;
      setTomlValue(toml, 'state-sync', 'snapshot-interval', INTERVAL);
      setTomlValue(toml, 'state-sync', 'snapshot-keep-recent', 2);
    }
    await net.startAll();
    const v0 = net.nodes[0]!;
    await v0.waitHeight(2, 120_000);
    const tChain = Date.now();
    const sender = startLoad(v0.eth);
    let last = 0;
    await waitFor(
      `${BLOCKS} blocks`,
      async () => {
        await sleep(1_000);
        const h = (await v0.height()) ?? 0;
        if (h >= last + 250) {
          last = h - (h % 250);
          log(`height ${h}, load ${load().join(' ')}`);
        }
        return h >= BLOCKS ? h : undefined;
      },
      24 * 3_600_000,
    );
    const chainSeconds = (Date.now() - tChain) / 1000;
    const head = await rpcResult(v0.eth, 'eth_getBlockByNumber', ['latest', false]);
    const wrote = readFileSync(nodeFiles(net.dir, v0.spec).appLog, 'utf8')
      .split('\n')
      .filter((l) => l.includes('snapshots: wrote height'))
      .at(-1);
    const m = /wrote height (\d+): (\d+) state entries, (\d+) chunk\(s\), (\d+) bytes in (\d+) ms/.exec(wrote ?? '');
    const dataBytes = Number(
      execFileSync('du', ['-sb', join(net.dir, v0.spec.appHome, 'data')], { encoding: 'utf8' }).split('\t')[0],
    );
    result.chain = {
      height: Number(head.number),
      seconds: Number(chainSeconds.toFixed(1)),
      blocksPerSecond: Number((Number(head.number) / chainSeconds).toFixed(2)),
      snapshot: m && {
        height: Number(m[1]),
        stateEntries: Number(m[2]),
        chunks: Number(m[3]),
        bytes: Number(m[4]),
        writeMs: Number(m[5]),
      },
      validatorDataBytes: dataBytes,
    };
    log(`chain: ${JSON.stringify(result.chain)}`);

    // Replay from genesis.
    const replay = net.addNode(4, { timeoutCommit: TIMEOUT_COMMIT });
    log('joining by replay…');
    const r = await joinNode(replay, v0);
    const rf = nodeFiles(net.dir, replay.spec);
    r.phases = phases(rf.cometLog, r.t0 as number, COMET_MARKERS);
    log(`replay: ${JSON.stringify(r)}`);
    await replay.kill();

    // State sync: trust the header of the newest snapshot the validators hold (see src/testnet/stateSync.ts).
    const snaps = readdirSync(join(net.dir, v0.spec.appHome, 'data', 'snapshots'))
      .filter((d) => /^\d+$/.test(d))
      .map(Number);
    const trustHeight = Math.max(...snaps);
    const trustHash = (await cometRpc(v0.rpc, 'block', { height: String(trustHeight) })).block_id.hash as string;
    const synced = net.addNode(5, {
      timeoutCommit: TIMEOUT_COMMIT,
      trust: {
        rpcServers: net.nodes.slice(0, 2).map((n) => `tcp://127.0.0.1:${n.spec.ports.rpc}`),
        height: trustHeight,
        hash: trustHash,
      },
    });
    log(`joining by state sync (trust height ${trustHeight})…`);
    const s = await joinNode(synced, v0);
    const sf = nodeFiles(net.dir, synced.spec);
    s.phases = phases(sf.cometLog, s.t0 as number, COMET_MARKERS);
    const restored = readFileSync(sf.appLog, 'utf8')
      .split('\n')
      .find((l) => l.includes('statesync: restored height'));
    s.kestrelRestore = restored?.replace(/^.*statesync: /, '');
    s.trustHeight = trustHeight;
    // Same chain: the synced node's block at a common height has the validators' hash and state root.
    const h = '0x' + (Number(await rpcResult(synced.eth, 'eth_blockNumber', [])) - 1).toString(16);
    const [a, b] = await Promise.all([v0, synced].map((n) => rpcResult(n.eth, 'eth_getBlockByNumber', [h, false])));
    s.agreesAtHeight = a.hash === b.hash && a.stateRoot === b.stateRoot ? Number(h) : false;
    log(`state sync: ${JSON.stringify(s)}`);
    await synced.kill();
    const txs = await sender.stop();
    delete r.t0;
    delete s.t0;
    result.transactionsSent = txs;
    result.replay = r;
    result.stateSync = s;
    result.ratio = Number(((r.joinSeconds as number) / (s.joinSeconds as number)).toFixed(2));
    const out =
      args.out ?? join(REPO_ROOT, 'bench', 'results', `${new Date().toISOString().slice(0, 10)}-statesync.json`);
    writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
    log(`replay ${r.joinSeconds} s vs state sync ${s.joinSeconds} s (x${result.ratio}); written to ${out}`);
  } finally {
    if (args.keep) {
      // The processes go either way (they would keep this script alive); only the directory stays for its logs.
      await Promise.all(net.nodes.map((n) => n.kill()));
      log(`kept ${net.dir}`);
    } else await net.dispose();
  }
}

await main();
