// Where the send path allocates: bench/sendInProcess.ts's workload (presigned transfers through handleBody on an
// in-process --dev node, 32 in flight, each followed by receipt polls) with V8's sampling heap profiler on for the last
// round, counting objects the collector has already freed, so the figure is everything allocated, not what survived.
// Prints the allocating functions by bytes per mined tx. Bundle it as the node runs:
//   npx esbuild bench/allocInProcess.ts --bundle --platform=node --format=esm --packages=external \
//     --outfile=dist/allocInProcess.mjs && KIND=write.transfer.inflight node dist/allocInProcess.mjs [txs] [rounds]
import { Session } from 'node:inspector/promises';
import { inProcessCall, inProcessTokenNode, sendAndPoll } from './lib/inProcess.ts';
import { WRITE_KINDS, writeTxs } from './workloads/writes.ts';

const perRound = Number(process.argv[2] ?? 3000);
const rounds = Number(process.argv[3] ?? 3);
const IN_FLIGHT = 32;
const kindId = process.env.KIND ?? 'write.erc20.inflight';
const kind = WRITE_KINDS.find((k) => k.id === kindId);
if (!kind) throw new Error(`KIND must be one of ${WRITE_KINDS.map((k) => k.id).join(', ')}`);

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

/** Sums self sizes by function and place, over the whole tree. */
function bySite(root: ProfileNode): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (n: ProfileNode): void => {
    const f = n.callFrame;
    const site = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\//, '')}:${f.lineNumber + 1}`;
    out.set(site, (out.get(site) ?? 0) + n.selfSize);
    for (const c of n.children) walk(c);
  };
  walk(root);
  return out;
}

const session = new Session();
session.connect();
const node = await inProcessTokenNode();
try {
  const { tn, chain, accounts: senders, token } = node;
  const call = inProcessCall(tn);
  for (let round = 0; round < rounds; round++) {
    const perSender = await writeTxs(chain, kind, senders, perRound, token);
    const last = round === rounds - 1;
    if (last)
      await session.post('HeapProfiler.startSampling', {
        samplingInterval: 1024,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    const mined = await sendAndPoll(call, perSender, IN_FLIGHT);
    if (!last) continue;
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: ProfileNode } };
    const sites = [...bySite(profile.head)].sort((a, b) => b[1] - a[1]);
    const total = sites.reduce((a, [, v]) => a + v, 0);
    console.log(`${kindId}: ${(total / mined / 1024).toFixed(1)} KiB allocated per mined tx (${mined} txs)`);
    for (const [site, bytes] of sites.slice(0, Number(process.env.TOP ?? 40)))
      console.log(`${(bytes / mined).toFixed(0).padStart(7)} B/tx  ${site}`);
  }
} finally {
  await node.close();
  session.disconnect();
}
