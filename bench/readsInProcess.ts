// In-process CPU cost of the read workloads: the bench's exact bodies (workloads/reads.ts) through handleBody and the
// node's own dispatcher on an in-process --dev node with the bench token deployed, no socket. CPU time
// (process.cpuUsage), best of 5 rounds, so a busy machine distorts it far less than wrk's req/s.
// Run it bundled, as the node runs (tsx's keepNames wraps every closure and inflates small costs ~1.5x):
//   npx esbuild bench/readsInProcess.ts --bundle --platform=node --format=esm --packages=external \
//     --outfile=dist/readsInProcess.mjs && node dist/readsInProcess.mjs [requests per kind] [kind,kind]
import { DEFAULT_RPC_LIMITS, handleBody } from '../src/rpc/server/jsonrpc.ts';
import { inProcessTokenNode } from './lib/inProcess.ts';
import { readBodies } from './workloads/reads.ts';

const perKind = Number(process.argv[2] ?? 20_000);
const only = process.argv[3]?.split(',');
const ROUNDS = 5;

const node = await inProcessTokenNode();
try {
  const { tn, token, accounts } = node;
  node.chain.client.close();
  const meta = { transport: 'http' as const, authorized: false };
  for (const { key, body, items } of readBodies(token, accounts)) {
    if (only !== undefined && !only.includes(key)) continue;
    const buf = Buffer.from(body);
    const reps = Math.max(200, Math.round(perKind / items));
    const once = async (): Promise<void> => {
      const r = handleBody(buf, tn.node.dispatcher, meta, DEFAULT_RPC_LIMITS);
      const text = r instanceof Promise ? await r : r;
      if (text === undefined || text.includes('"error"')) throw new Error(`${key}: ${text}`);
    };
    for (let i = 0; i < reps / 4; i++) await once();
    let best = Infinity;
    for (let round = 0; round < ROUNDS; round++) {
      const c0 = process.cpuUsage();
      for (let i = 0; i < reps; i++) await once();
      const c = process.cpuUsage(c0);
      best = Math.min(best, (c.user + c.system) / reps);
    }
    console.log(`${key}: ${best.toFixed(2)} µs CPU per request (best of ${ROUNDS} rounds of ${reps})`);
  }
} finally {
  await node.close();
}
