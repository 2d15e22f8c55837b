// A fault-injection hook for the torn-write tests only (test/reliability/tornWrites.test.ts). With
// KESTREL_TEST_FAULT="<point>:<n>:<delayUs>" the n-th arrival at <point> spins for delayUs microseconds and then
// kills the process with SIGKILL. A point sits just after a write was started (a LevelDB batch runs on libuv's
// threads meanwhile), so the kill lands inside the write, at a point the test randomises. Unset — always, outside
// those tests — an arrival is one comparison.

/** Where a test may kill the process. */
export type FaultPoint = 'commit' | 'rewind' | 'snapshot-chunk';

const POINTS: readonly FaultPoint[] = ['commit', 'rewind', 'snapshot-chunk'];

interface FaultSpec {
  point: FaultPoint;
  n: number;
  delayUs: number;
}

function parseFault(raw: string | undefined): FaultSpec | undefined {
  if (raw === undefined || raw === '') return undefined;
  const [point, n, delayUs] = raw.split(':');
  if (!POINTS.includes(point as FaultPoint) || !/^\d+$/.test(n ?? '') || !/^\d+$/.test(delayUs ?? '0')) {
    throw new Error(`KESTREL_TEST_FAULT: expected <${POINTS.join('|')}>:<n>:<delayUs>, got '${raw}'`);
  }
  return { point: point as FaultPoint, n: Number(n), delayUs: Number(delayUs ?? 0) };
}

const spec = parseFault(process.env.KESTREL_TEST_FAULT);
let arrivals = 0;

/** Kills the process here when the test's fault spec names this point and this arrival; otherwise returns. */
export function faultPoint(point: FaultPoint): void {
  if (spec === undefined || spec.point !== point || ++arrivals !== spec.n) return;
  const until = process.hrtime.bigint() + BigInt(spec.delayUs) * 1000n;
  while (process.hrtime.bigint() < until) {
    // Busy-wait: the write started before this point keeps running on another thread.
  }
  process.kill(process.pid, 'SIGKILL');
}
