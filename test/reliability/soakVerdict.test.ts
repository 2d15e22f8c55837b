// The soak's verdict on made-up curves: it fails a run whose load did not run, RSS or fds outside the band, p99
// drift, loss and failed requests, and passes a flat, busy run (so the 5-minute soak in CI cannot pass vacuously).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KINDS, referenceRss, type SoakSample, verdict } from '../helpers/soak.ts';

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
  });

  it('fails p99 drift, loss, failed requests and too few samples', () => {
    const drift = flat.map((x, i) => (i >= 6 ? sample(x.atSeconds, x.rssMiB, 400) : x));
    assert.ok(run(drift).some((f) => /last-quarter p99 400.0 ms > 1.5 x second-quarter 100.0 ms/.test(f)));
    // The same rise while the machine itself was 3x slower (the probe) is the neighbours', not drift.
    const busy = drift.map((x, i) => (i >= 6 ? { ...x, probeMs: 6 } : x));
    assert.ok(!run(busy).some((f) => /p99/.test(f)));
    assert.ok(run(flat, { lost: ['0xab'] }).some((f) => /1 acknowledged txs not mined/.test(f)));
    assert.ok(run(flat, { errors: ['eth_call: boom'] }).some((f) => /1 failed requests/.test(f)));
    assert.deepEqual(run(flat.slice(0, 3)), ['too few samples for a verdict']);
  });
});
