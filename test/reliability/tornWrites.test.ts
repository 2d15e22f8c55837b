// Torn writes: the node kills itself (SIGKILL, through the test-only KESTREL_TEST_FAULT hook, src/store/faults.ts)
// at a randomised point inside a block's commit — the n-th commit after start, a random number of microseconds
// after its LevelDB batch was handed to libuv's threads —, inside an evm_revert's rewind batch, and in the middle
// of writing a state-sync snapshot (a validator behind CometBFT, after a chunk). After each kill
// the node restarts on the same home and must reopen on the last whole block: every block from genesis verifies
// (hash, parent link, one receipt per tx, every funded account proven against its state root, supply conserved),
// the head's hash never changes across a restart, and every acknowledged tx is mined or pending again; only whole
// snapshots are ever listed, and the validator goes on making blocks and snapshots.
// TORN_ROUNDS (default 8 in CI; `npm run torn` runs 50) and TORN_SEED (default fixed, printed) tune the run.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import { Wallet } from 'ethers';
import { setTomlValue } from '../../src/config/appToml.ts';
import { homePaths } from '../../src/node/home.ts';
import { DEV_ACCOUNTS, DEV_BALANCE } from '../helpers/accounts.ts';
import { cometbftMissing, CometNet, freePortBlock } from '../helpers/cometbft.ts';
import { type KestrelNode, printLogsOnFailure, rpcResult, startNode, waitFor } from '../helpers/node.ts';
import { prng } from '../helpers/random.ts';
import { feeTerms, RestartAudit, signTransfer, TransferStream } from './support.ts';

const ROUNDS = Number(process.env.TORN_ROUNDS ?? 8);
const SEED = Number(process.env.TORN_SEED ?? 0x70e2);
const SUPPLY = BigInt(DEV_ACCOUNTS.length) * DEV_BALANCE;
const KILL_WAIT_MS = 30_000;

/** Resolves with the exit signal once the process has exited (it is expected to kill itself). */
function exited(node: KestrelNode): Promise<NodeJS.Signals | null> {
  const p = node.proc;
  if (p.exitCode !== null || p.signalCode !== null) return Promise.resolve(p.signalCode);
  return new Promise((res, rej) => {
    const t = setTimeout(
      () => rej(new Error(`the fault point was not reached within ${KILL_WAIT_MS} ms`)),
      KILL_WAIT_MS,
    );
    p.once('exit', (_code, signal) => {
      clearTimeout(t);
      res(signal);
    });
  });
}

describe('torn writes: kill -9 inside a commit and inside an evm_revert', { timeout: 1_800_000 }, () => {
  const rand = prng(SEED);
  const base = mkdtempSync(join(tmpdir(), 'kestrel-torn-'));
  const home = join(base, 'home');
  let node: KestrelNode | undefined;
  let audit: RestartAudit | undefined;
  const stats = { commitKills: 0, revertKills: 0, revertsLanded: 0, acked: 0 };

  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    await node?.dispose();
    rmSync(base, { recursive: true, force: true });
    console.log(
      `# torn writes: seed ${SEED}; ${stats.commitKills} kills inside a commit, ${stats.revertKills} inside a rewind ` +
        `(${stats.revertsLanded} of those reverts had landed); ${stats.acked} txs acknowledged, ${audit?.mined.size} mined`,
    );
  });

  /** Starts the node on the shared home, with a fault spec or none. */
  async function start(fault?: string): Promise<KestrelNode> {
    node = await startNode({ home, env: fault === undefined ? {} : { KESTREL_TEST_FAULT: fault } });
    return node;
  }

  it(`${ROUNDS} kills inside a block's commit: the node reopens on the last whole block, nothing acknowledged lost`, async () => {
    console.log(`# torn writes: seed ${SEED} (set TORN_SEED to replay), ${ROUNDS} rounds per point`);
    let cur = await start();
    const coinbase = await rpcResult<string>(cur.http, 'eth_coinbase');
    const accounts = [...new Set([...DEV_ACCOUNTS.map((a) => a.address.toLowerCase()), coinbase.toLowerCase()])];
    audit = new RestartAudit(accounts, SUPPLY);
    await audit.check(cur.http, 'genesis');
    const fees = await feeTerms(cur.http);
    await cur.stop('SIGTERM');
    const stream = new TransferStream(
      DEV_ACCOUNTS.slice(0, 4).map((a) => a.privateKey),
      5,
    );
    for (let round = 0; round < ROUNDS; round++) {
      const n = 1 + Math.floor(rand() * 4);
      const delayUs = Math.floor(rand() * 3000);
      cur = await start(`commit:${n}:${delayUs}`);
      const before = stream.acked.length;
      stream.start(cur.http, fees);
      assert.equal(await exited(cur), 'SIGKILL', `round ${round}: killed itself at commit ${n} (+${delayUs} µs)`);
      stats.commitKills++;
      await stream.drained();
      audit.unresolved.push(...stream.acked.slice(before));
      cur = await start();
      await audit.check(cur.http, `after the kill at commit ${n} + ${delayUs} µs (round ${round})`);
      await cur.stop('SIGTERM');
    }
    assert.deepEqual(stream.unexpected, [], 'no unexpected submission errors');
    // The restored pool drains: everything acknowledged is mined, and the chain verifies once more.
    cur = await start();
    await waitFor(
      'the pool to drain',
      async () => {
        const s = await rpcResult<{ pending: string; queued: string }>(cur.http, 'txpool_status');
        return BigInt(s.pending) === 0n && BigInt(s.queued) === 0n ? true : undefined;
      },
      60_000,
    );
    await audit.check(cur.http, 'after the pool drained');
    assert.equal(audit.unresolved.length, 0, 'every acknowledged tx is mined');
    assert.equal(audit.mined.size, stream.acked.length, 'txs lost: acknowledged but never mined');
    stats.acked = stream.acked.length;
    await cur.stop('SIGTERM');
  });

  it(`${ROUNDS} kills inside an evm_revert: the head is the old one or the reverted-to one, never between`, async () => {
    const wallet = new Wallet(DEV_ACCOUNTS[5]!.privateKey);
    for (let round = 0; round < ROUNDS; round++) {
      const cur = await start(`rewind:1:${Math.floor(rand() * 3000)}`);
      const fees = await feeTerms(cur.http);
      const snapshot = await rpcResult<string>(cur.http, 'evm_snapshot');
      const kept = await rpcResult<any>(cur.http, 'eth_getBlockByNumber', ['latest', false]);
      // A few blocks with transfers above the snapshot, for the revert to forget.
      const blocks = 1 + Math.floor(rand() * 4);
      const sent: string[] = [];
      for (let i = 0; i < blocks; i++) {
        const nonce = Number(
          BigInt(await rpcResult<string>(cur.http, 'eth_getTransactionCount', [wallet.address, 'pending'])),
        );
        const tx = await signTransfer(wallet, DEV_ACCOUNTS[6]!.address, 1n, nonce, fees);
        sent.push(await rpcResult<string>(cur.http, 'eth_sendRawTransaction', [tx.raw]));
        await rpcResult(cur.http, 'evm_mine');
      }
      const top = await rpcResult<any>(cur.http, 'eth_getBlockByNumber', ['latest', false]);
      await rpcResult(cur.http, 'evm_revert', [snapshot]).catch(() => undefined); // the node dies inside it
      assert.equal(await exited(cur), 'SIGKILL', `round ${round}: killed itself inside the rewind`);
      stats.revertKills++;
      const after = await start();
      const head = await rpcResult<any>(after.http, 'eth_getBlockByNumber', ['latest', false]);
      const landed = head.hash === kept.hash;
      assert.ok(
        landed || head.hash === top.hash,
        `round ${round}: head ${BigInt(head.number)} is neither ${BigInt(kept.number)} nor ${BigInt(top.number)}`,
      );
      if (landed) {
        stats.revertsLanded++;
        audit!.rewoundTo(Number(BigInt(kept.number)), kept.hash);
        for (const h of sent) {
          const tx = await rpcResult<any>(after.http, 'eth_getTransactionByHash', [h]);
          assert.ok(
            tx === null || tx.blockNumber === null,
            `round ${round}: a reverted tx is still indexed in a block`,
          );
        }
      } else {
        for (const h of sent) {
          const r = await rpcResult<any>(after.http, 'eth_getTransactionReceipt', [h]);
          assert.ok(
            r !== null && BigInt(r.blockNumber) <= BigInt(top.number),
            `round ${round}: a mined tx lost its receipt`,
          );
        }
      }
      await audit!.check(
        after.http,
        `after the kill inside evm_revert (round ${round}, ${landed ? 'landed' : 'not landed'})`,
      );
      // The node keeps making blocks on top of whichever head it reopened on.
      await rpcResult(after.http, 'evm_mine');
      assert.equal(BigInt(await rpcResult<string>(after.http, 'eth_blockNumber')), BigInt(head.number) + 1n);
      await audit!.check(after.http, `a block after round ${round}`);
      await after.stop('SIGTERM');
    }
  });
});

/** The snapshot heights the node would list (numeric directories with their meta.json), each checked whole. */
function wholeSnapshots(dir: string): number[] {
  if (!existsSync(dir)) return [];
  const listed = readdirSync(dir).filter((d) => /^\d+$/.test(d) && existsSync(join(dir, d, 'meta.json')));
  for (const d of listed) {
    const meta = JSON.parse(readFileSync(join(dir, d, 'meta.json'), 'utf8')) as { chunks: number };
    for (let i = 0; i < meta.chunks; i++)
      assert.ok(existsSync(join(dir, d, `chunk-${i}`)), `snapshot ${d} is listed but its chunk ${i} is missing`);
  }
  return listed.map(Number);
}

// Each round is two starts and seven blocks at 200 ms: ~10-20 s on the shared machine.
describe(
  'torn writes: kill -9 inside a state-sync snapshot',
  {
    skip: cometbftMissing(),
    timeout: 300_000 + ROUNDS * 60_000,
  },
  () => {
    const rand = prng(SEED + 1);
    let net: CometNet | undefined;
    after(async () => {
      await net?.dispose();
    });

    it(`${ROUNDS} kills after a snapshot chunk: only whole snapshots are listed; blocks and snapshots go on`, async () => {
      net = CometNet.create({ validators: 1, basePort: await freePortBlock(1), args: ['--timeout-commit', '200ms'] });
      const n0 = net.nodes[0]!;
      const appHome = join(net.dir, n0.spec.appHome);
      setTomlValue(homePaths(appHome).appToml, 'state-sync', 'snapshot-interval', 3);
      setTomlValue(homePaths(appHome).appToml, 'state-sync', 'snapshot-keep-recent', 2);
      const dir = join(appHome, 'data', 'snapshots');
      for (let round = 0; round < ROUNDS; round++) {
        // The child inherits the variable at spawn: set for this start only.
        process.env.KESTREL_TEST_FAULT = `snapshot-chunk:${1 + Math.floor(rand() * 2)}:0`;
        try {
          await n0.start();
        } finally {
          delete process.env.KESTREL_TEST_FAULT;
        }
        await waitFor(
          'the app to kill itself inside a snapshot',
          async () => (n0.app!.signalCode === 'SIGKILL' ? true : undefined),
          60_000,
        );
        await n0.cometStopsAfterApp(5_000);
        const before = wholeSnapshots(dir);
        await n0.start();
        const h = await n0.waitHeight(1, 60_000);
        // Two intervals later a new snapshot is listed, whole.
        await n0.waitHeight(h + 7, 60_000);
        await waitFor(
          'a snapshot newer than the ones before the kill',
          async () => (Math.max(0, ...wholeSnapshots(dir)) > Math.max(0, ...before) ? true : undefined),
          60_000,
        );
        await n0.kill();
      }
    });
  },
);
