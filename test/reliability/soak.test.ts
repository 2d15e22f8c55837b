// The short soak in CI (issue 30, item 4): the same run as `npm run soak` (test/helpers/soak.ts) for SOAK_MINUTES
// (default 5) with the same verdict (test/helpers/soakVerdict.ts, each check shown failing in soakVerdict.test.ts):
// open fds within ±10% of their value at the reference (minute 2 of 5), no
// p99 drift between the second quarter and the second half, every acknowledged transaction mined, no failed request,
// both subscriptions complete, and RSS within ±25% of the reference. Its own checks make sure the load really ran: a
// floor on each kind of request, on the blocks made and on the samples after the reference.
//
// Why ±25% here and not the issue's ±10%: the ±10% is "after the first 5 minutes", which is `npm run soak -- --minutes
// 20` or more (bench/results/2026-11-29-soak.md); here the reference is minute 2, when V8's old space and the caches
// may still be filling. (runSoak starts the load on a chain past EIP-2935's history window, so the state itself no
// longer grows under it; the figures below were measured before that premine and are an upper bound.) The load is offered at a fixed rate (SOAK_INTERVALS_MS), so that warm-up is
// the same work on any machine: a CI machine that answered 4x faster than this one once grew RSS 216 -> 290+ MiB from
// minute 2 to minute 5 under the old closed-loop load. Paced, here, minute 2 -> 5: 218 -> 221-242 MiB (+11% at most).
// ±25% still fails a leak of more than ~7 MiB a minute on top of that warm-up, which is what five minutes can tell.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { type KestrelNode } from '../helpers/node.ts';
import { curveTable, KINDS, runSoak, SOAK_NODE_ARGS } from '../helpers/soak.ts';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 5);
const SECONDS = Math.round(MINUTES * 60);
const SAMPLE_SECONDS = 15;
const REF_SECONDS = Math.round(0.4 * SECONDS);
const RSS_BAND = 0.25;
// Floors far below what the slowest run measured on the shared 2-core machine (per 5 minutes: ~4,000 sends,
// ~10,000 reads, ~800 getLogs, ~350 traces), and far above what a stalled node or a broken loop would give.
const PER_MINUTE_FLOOR: Record<(typeof KINDS)[number], number> = {
  getBalance: 100,
  call: 100,
  send: 60,
  getLogs: 20,
  trace: 10,
};

describe('soak', { timeout: (SECONDS + 600) * 1000 }, () => {
  let node: KestrelNode | undefined;
  after(async () => node?.dispose());

  it(`${MINUTES} minutes of mixed load: fds flat and RSS bounded from ${REF_SECONDS} s, p99 steady, nothing lost`, async () => {
    const r = await runSoak({
      seconds: SECONDS,
      sampleSeconds: SAMPLE_SECONDS,
      refSeconds: REF_SECONDS,
      args: SOAK_NODE_ARGS,
      rssBand: RSS_BAND,
    });
    node = r.node;
    const table = curveTable(r.samples);
    if (r.failures.length > 0) r.node.printLogs('soak failed');
    assert.deepEqual(r.failures, [], `soak verdict failed:\n${table}`);

    // Not vacuous: the load ran for the whole window, of every kind, and was checked.
    for (const k of KINDS) {
      const floor = PER_MINUTE_FLOOR[k] * MINUTES;
      assert.ok(r.requests[k] >= floor, `only ${r.requests[k]} ${k} requests answered (floor ${floor})\n${table}`);
    }
    assert.ok(r.acked >= PER_MINUTE_FLOOR.send * MINUTES, `only ${r.acked} txs acknowledged`);
    assert.equal(r.lost.length, 0);
    assert.ok(r.headsSeen >= 60 * MINUTES, `newHeads saw only ${r.headsSeen} blocks`);
    assert.ok(r.logsSeen >= 30 * MINUTES, `logs saw only ${r.logsSeen} transfers`);
    const after = r.samples.filter((s) => s.atSeconds >= REF_SECONDS);
    assert.ok(
      after.length >= Math.floor((SECONDS - REF_SECONDS) / SAMPLE_SECONDS) - 1,
      `only ${after.length} samples after the reference\n${table}`,
    );
    assert.ok(r.samples[r.refIndex]!.atSeconds >= REF_SECONDS, 'reference sample taken at or after its time');
    // The load kept running after the reference: each kind answered in all but at most two of the windows (a
    // neighbour's burst on the shared machine can empty a 15-s window of the slowest kind, traces).
    for (const k of KINDS) {
      const idle = after.filter((s) => s.latency[k].n === 0).map((s) => s.atSeconds);
      assert.ok(idle.length <= 2, `no ${k} finished in the windows ending at ${idle.join(', ')} s\n${table}`);
    }
  });
});
