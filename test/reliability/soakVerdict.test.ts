// The soak's verdict on made-up curves: it fails a run whose load did not run, RSS or fds outside the band, p99
// drift, loss and failed requests, and passes a flat, busy run (so the 5-minute soak in CI cannot pass vacuously).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KINDS, p99Drift, referenceRss, type SoakSample, verdict } from '../helpers/soakVerdict.ts';

function sample(atSeconds: number, rssMiB: number, p99 = 100, fds = 40): SoakSample {
  const latency = {} as SoakSample['latency'];
  for (const k of KINDS) latency[k] = { n: 100, p50: 10, p99, ms: [...Array(98).fill(10), p99, p99] as number[] };
  return {
    atSeconds,
    rssMiB,
    heapUsedMiB: 50,
    heapTotalMiB: 100,
    externalMiB: 8,
    cacheMiB: 10,
    cacheByName: {},
    heapSpaces: {},
    load1: 1,
    probeMs: 2,
    fds,
    latency,
    sent: atSeconds,
    acked: atSeconds,
    mined: atSeconds,
    head: atSeconds,
  };
}

function run(samples: SoakSample[], over: Partial<Parameters<typeof verdict>[0]> = {}) {
  return verdict({
    seconds: 300,
    samples,
    refIndex: 2,
    requests: { getBalance: 1000, call: 1000, send: 500, getLogs: 100, trace: 50 },
    sent: 500,
    acked: 500,
    mined: 500,
    lost: [],
    errors: [],
    subProblems: [],
    headsSeen: 400,
    logsSeen: 200,
    ...over,
  });
}

const flat = [30, 60, 90, 120, 150, 180, 210, 240].map((t) => sample(t, 200 + (t % 60 === 0 ? 5 : -5)));

describe('soak verdict', () => {
  it('passes a flat, busy run', () => {
    assert.deepEqual(run(flat), []);
  });

  it('fails when a kind of request or a subscription never ran', () => {
    const out = run(flat, {
      requests: { getBalance: 1000, call: 1000, send: 500, getLogs: 0, trace: 50 },
      logsSeen: 0,
    });
    assert.ok(out.includes('no getLogs request finished'));
    assert.ok(out.includes('the logs subscription saw no transfer'));
  });

  it('fails RSS and fds outside ±10% of the reference, which is the median around it', () => {
    const s = flat.map((x) => ({ ...x }));
    s[6] = sample(210, 230);
    s[7] = sample(240, 200, 100, 50);
    assert.equal(referenceRss(s, 2), 205);
    const out = run(s);
    assert.equal(out.length, 2);
    assert.match(out[0]!, /RSS 230 MiB at 210 s is outside ±10% of 205 MiB/);
    assert.match(out[1]!, /50 open fds at 240 s/);
    // A wider band (the 5-minute CI run's) lets the same curve's RSS through, not its fds.
    const wide = run(s, { rssBand: 0.25 });
    assert.equal(wide.length, 1);
    assert.match(wide[0]!, /50 open fds/);
    s[7] = sample(240, 260);
    assert.match(run(s, { rssBand: 0.25 })[0]!, /RSS 260 MiB at 240 s is outside ±25% of 205 MiB/);
    // fds: strictly ±10% of the reference (40): 36 and 44 pass, 35 and 45 fail.
    for (const fds of [36, 44]) {
      s[7] = sample(240, 200, 100, fds);
      assert.deepEqual(run(s, { rssBand: 0.25 }), []);
    }
    for (const fds of [35, 45]) {
      s[7] = sample(240, 200, 100, fds);
      assert.match(run(s, { rssBand: 0.25 })[0]!, new RegExp(`${fds} open fds at 240 s is outside ±10% of 40`));
    }
  });

  it('fails p99 drift: the typical window of the second half slower than the second quarter by 1.5x + 100 ms', () => {
    // 16 windows: the second quarter is 4-7, the second half 8-15. The node slows steadily from window 8 on.
    const sixteen = Array.from({ length: 16 }, (_, i) => sample(15 * (i + 1), 200));
    const drift = sixteen.map((x, i) => (i >= 8 ? sample(x.atSeconds, 200, 100 + 60 * (i - 7)) : x));
    const d = p99Drift(drift);
    assert.equal(d.call.ref, 100);
    assert.equal(d.call.late, (340 + 400) / 2);
    assert.ok(run(drift, { refIndex: 6 }).some((f) => /call: second-half median window p99 370.0 ms > 1.5 x/.test(f)));
    // Just inside the limit (1.5 x 100 + 100 = 250 ms) passes.
    const creep = sixteen.map((x, i) => (i >= 8 ? sample(x.atSeconds, 200, 245) : x));
    assert.deepEqual(run(creep, { refIndex: 6 }), []);
    // The same rise while the machine itself was 3x slower (the probe) is the neighbours', not drift.
    const busy = drift.map((x, i) => (i >= 8 ? { ...x, probeMs: 6 } : x));
    assert.ok(!run(busy, { refIndex: 6 }).some((f) => /p99/.test(f)));
  });

  it('does not call a stall of a few windows drift (a neighbour took the cores for 45 s)', () => {
    // Three windows of 0.6-2.3 s in the last quarter, as a 5-minute run on the shared machine measured, with the
    // probe unmoved: the pooled last-quarter p99 would be 2-4x the reference, the windows' median is not.
    const s = Array.from({ length: 16 }, (_, i) =>
      sample(15 * (i + 1), 200, i >= 12 && i <= 14 ? 600 + 800 * (i - 12) : 110),
    );
    assert.deepEqual(run(s, { refIndex: 6 }), []);
    // Stalled for most of the second half, it is drift.
    const long = Array.from({ length: 16 }, (_, i) => sample(15 * (i + 1), 200, i >= 10 ? 900 : 110));
    assert.equal(run(long, { refIndex: 6 }).filter((f) => /p99/.test(f)).length, KINDS.length);
  });

  it('fails loss, failed requests and too few samples', () => {
    assert.ok(run(flat, { lost: ['0xab'] }).some((f) => /1 acknowledged txs not mined/.test(f)));
    assert.ok(run(flat, { errors: ['eth_call: boom'] }).some((f) => /1 failed requests/.test(f)));
    assert.deepEqual(run(flat.slice(0, 3)), ['too few samples for a verdict']);
  });
});
