// Crash safety: a steady stream of transfers from 10 senders while the node is killed with SIGKILL at random
// points (some timed right after a block announcement, so they land while the next block is being executed
// and committed), then restarted on the same home; then the same with SIGTERM. After every restart:
//  - no announced block was lost and the head is a whole block (header, receipts, state all readable);
//  - every block's hash recomputes, links to its parent, and all funded accounts prove against its stateRoot;
//  - the balances of all funded accounts plus the fee recipient sum to the genesis supply at every height;
//  - every tx whose hash the node returned is mined or back in the pool (nothing acknowledged is lost).
// CRASH_KILLS (default 20) and CRASH_SEED (default fixed, printed) tune the run.
import assert from 'node:assert/strict';
import { after, afterEach, describe, it } from 'node:test';
import WebSocket from 'ws';
import { DEV_ACCOUNTS, DEV_BALANCE } from '../helpers/accounts.ts';
import { type KestrelNode, printLogsOnFailure, rpcResult, sleep, startNode, waitFor } from '../helpers/node.ts';
import { prng } from '../helpers/random.ts';
import { feeTerms, RestartAudit, TransferStream, verifyBlocks } from './support.ts';

const KILLS = Number(process.env.CRASH_KILLS ?? 20);
const SEED = Number(process.env.CRASH_SEED ?? 0x5eed10);
const SUPPLY = BigInt(DEV_ACCOUNTS.length) * DEV_BALANCE;

/** Resolves with a kill function that fires `delayMs` after the next newHeads notification (or after 3 s). */
async function afterNextHead(wsUrl: string, delayMs: number): Promise<{ fired: Promise<void>; close(): void }> {
  const sock = new WebSocket(wsUrl);
  await new Promise<void>((res, rej) => {
    sock.once('open', () => res());
    sock.once('error', rej);
  });
  sock.on('error', () => {});
  sock.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
  const fired = new Promise<void>((res) => {
    const fallback = setTimeout(res, 3_000);
    sock.on('message', (d) => {
      const msg = JSON.parse(d.toString()) as { method?: string };
      if (msg.method !== 'eth_subscription') return;
      clearTimeout(fallback);
      setTimeout(res, delayMs);
    });
  });
  return { fired, close: () => sock.terminate() };
}

describe('crash safety under a transfer stream', { timeout: 900_000 }, () => {
  let node: KestrelNode | undefined;
  const older: KestrelNode[] = [];
  const rand = prng(SEED);
  const stream = new TransferStream(
    DEV_ACCOUNTS.map((a) => a.privateKey),
    15,
  );
  let audit: RestartAudit;
  const stats = { kills: 0, terms: 0, acked: 0, killedMidBlock: 0 };

  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    await stream.stop().catch(() => {});
    await node?.dispose();
    for (const n of older) await n.dispose().catch(() => {});
    console.log(
      `# crash: seed ${SEED}; ${stats.kills} SIGKILLs (${stats.killedMidBlock} right after a block announcement), ` +
        `${stats.terms} SIGTERMs; ${stream.acked.length} txs acknowledged, ${audit?.mined.size} mined; head ${audit?.verifiedTo}`,
    );
  });

  it(`survives ${KILLS} SIGKILLs and 2 SIGTERMs with nothing acknowledged lost`, async () => {
    console.log(`# crash: seed ${SEED} (set CRASH_SEED to replay), ${KILLS} kills`);
    let cur: KestrelNode = (node = await startNode());
    const coinbase = await rpcResult<string>(cur.http, 'eth_coinbase');
    const accounts = [...new Set([...DEV_ACCOUNTS.map((a) => a.address.toLowerCase()), coinbase.toLowerCase()])];
    audit = new RestartAudit(accounts, SUPPLY);
    await audit.check(cur.http, 'genesis');
    const fees = await feeTerms(cur.http);

    const rounds = KILLS + 2;
    for (let round = 0; round < rounds; round++) {
      const graceful = round >= KILLS;
      const before = stream.acked.length;
      stream.start(cur.http, fees);
      // Half the kills are timed from a block announcement (the next block is executing/committing then),
      // the rest at a uniformly random point of the stream.
      const timed = !graceful && round % 2 === 1;
      if (timed) {
        await sleep(300 + rand() * 700);
        const trigger = await afterNextHead(cur.ws, Math.floor(rand() * 25));
        await trigger.fired;
        trigger.close();
        stats.killedMidBlock++;
      } else {
        await sleep(400 + rand() * 1800);
      }
      const old: KestrelNode = cur;
      if (graceful) {
        const code = await old.stop('SIGTERM');
        assert.equal(code, 0, `round ${round}: SIGTERM exits 0`);
        stats.terms++;
      } else {
        const code = await old.stop('SIGKILL');
        assert.equal(code, null, `round ${round}: killed by the signal`);
        stats.kills++;
      }
      await stream.drained();
      audit.unresolved.push(...stream.acked.slice(before));
      assert.ok(stream.acked.length > before, `round ${round}: the stream got some txs acknowledged`);
      older.push(old);
      cur = node = await old.restart();
      await audit.check(cur.http, `after ${graceful ? 'SIGTERM' : 'SIGKILL'} #${round + 1}`);
      if (graceful) {
        // A graceful stop flushes: the journal replays without a tx refused for a reason other than being mined.
        assert.doesNotMatch(cur.logs(), /journaled tx not restored/);
      }
    }
    assert.deepEqual(stream.unexpected, [], 'no unexpected submission errors');

    // Let the restored pool drain, then everything acknowledged is mined and the whole chain re-verifies.
    await waitFor(
      'the pool to drain',
      async () => {
        const s = await rpcResult<{ pending: string; queued: string }>(cur.http, 'txpool_status');
        return BigInt(s.pending) === 0n && BigInt(s.queued) === 0n ? true : undefined;
      },
      60_000,
    );
    const head = Number(BigInt(await rpcResult<string>(cur.http, 'eth_blockNumber')));
    await verifyBlocks(cur.http, 0, head, accounts, SUPPLY);
    await audit.check(cur.http, 'at the end');
    assert.equal(audit.unresolved.length, 0, 'every acknowledged tx is mined once the pool drained');
    assert.equal(audit.mined.size, stream.acked.length, 'txs lost: acknowledged but never mined');
    // Each sender's nonce covers all its acknowledged txs.
    for (const a of DEV_ACCOUNTS) {
      const n = Number(BigInt(await rpcResult<string>(cur.http, 'eth_getTransactionCount', [a.address, 'latest'])));
      const acks = stream.acked.filter((t) => t.sender === a.address);
      assert.ok(
        n >= Math.max(...acks.map((t) => t.nonce)) + 1,
        `${a.address}: nonce ${n} after the run is below its acknowledged txs`,
      );
    }
    stats.acked = stream.acked.length;
  });
});
