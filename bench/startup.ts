// Startup to first answer: `node <launcher> start --dev` on a fresh home, then again on that (now existing) home,
// N times, timing spawn → first eth_blockNumber reply in wall time and in the process's CPU time (the figure a
// busy machine does not distort). Usage: node --import tsx bench/startup.ts [runs=7] [launcher=bin/kestreld.js ...].
// With several launchers (e.g. another checkout's bin/kestreld.js) the runs alternate, so the comparison is fair
// on a busy machine. The starts, flags and measurement point are `npm run bench`'s startup rows' (same
// kestrelStart and spawnNode); this adds the CPU figure and medians over more runs.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { kestrelStart } from './nodes/kestrel.ts';
import { spawnNode } from './nodes/process.ts';

const runs = Number(process.argv[2] ?? 7);
const launchers = process.argv.length > 3 ? process.argv.slice(3) : ['bin/kestreld.js'];

interface Sample {
  wall: number;
  cpu: number;
}

async function once(launcher: string, home: string): Promise<Sample> {
  const { url, args } = await kestrelStart(launcher, home);
  const s = await spawnNode('kestrel', process.execPath, args, url);
  await s.stop();
  return { wall: s.startupMs, cpu: s.startupCpuMs };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const fmt = (xs: Sample[]): string =>
  `wall median ${median(xs.map((x) => x.wall)).toFixed(0)} ms, CPU median ${median(xs.map((x) => x.cpu)).toFixed(0)} ms ` +
  `(wall/CPU: ${xs.map((x) => `${x.wall.toFixed(0)}/${x.cpu.toFixed(0)}`).join(', ')})`;

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
console.log(`load average before: ${load()}`);
const fresh = launchers.map((): Sample[] => []);
const existing = launchers.map((): Sample[] => []);
for (let i = 0; i < runs; i++) {
  for (const [j, l] of launchers.entries()) {
    const base = mkdtempSync(join(tmpdir(), 'kestrel-startup-'));
    try {
      fresh[j]!.push(await once(l, join(base, 'home')));
      existing[j]!.push(await once(l, join(base, 'home')));
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  }
}
for (const [j, l] of launchers.entries()) {
  console.log(`${l}, fresh --dev home: ${fmt(fresh[j]!)}`);
  console.log(`${l}, existing home:    ${fmt(existing[j]!)}`);
}
console.log(`load average after: ${load()}`);
