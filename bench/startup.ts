// Startup to first answer on an existing home: `node <launcher> start --dev` N times on one home, timing spawn →
// first eth_blockNumber reply. Usage: node --import tsx bench/startup.ts [runs=7] [launcher=bin/kestreld.js ...].
// With several launchers (e.g. another checkout's bin/kestreld.js) the runs alternate, so the comparison is fair
// on a busy machine.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kestrelStart } from './nodes/kestrel.ts';
import { spawnNode } from './nodes/process.ts';

const runs = Number(process.argv[2] ?? 7);
const launchers = process.argv.length > 3 ? process.argv.slice(3) : ['bin/kestreld.js'];
const home = mkdtempSync(join(tmpdir(), 'kestrel-startup-'));

async function once(launcher: string): Promise<number> {
  const { url, args } = await kestrelStart(launcher, home);
  const s = await spawnNode('kestrel', process.execPath, args, url);
  await s.stop();
  return s.startupMs;
}

try {
  const first = await once(launchers[0]!); // creates the home
  for (const l of launchers.slice(1)) await once(l); // warms each launcher's own caches
  const times = launchers.map((): number[] => []);
  for (let i = 0; i < runs; i++) for (const [j, l] of launchers.entries()) times[j]!.push(await once(l));
  console.log(`first start (new home) ${first.toFixed(0)} ms`);
  for (const [j, l] of launchers.entries()) {
    const t = times[j]!.sort((a, b) => a - b);
    console.log(`${l}: ${t.map((x) => x.toFixed(0)).join(' ')} ms; median ${t[t.length >> 1]!.toFixed(0)} ms`);
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}
