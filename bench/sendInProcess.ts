// In-process CPU cost of the ERC20 write workload with 32 in flight (bench/sendCpu.ts's, without the socket): the
// bench's presigned transfers through handleBody and the node's own dispatcher on an in-process --dev node, each
// eth_sendRawTransaction followed by eth_getTransactionReceipt polls until the receipt exists, as sendAll does.
// Per round: the main thread's CPU per mined tx (what the node's JavaScript costs; signing happens before the
// clock starts) and the whole process's (with GC and compiler threads and LevelDB's), and the blocks it took.
// Round 0 warms the JIT; compare the later rounds. Two checkouts compare by running each one's build in turn.
// Run it bundled, as the node runs (tsx's keepNames wraps every closure and inflates small costs ~1.5x):
//   npx esbuild bench/sendInProcess.ts --bundle --platform=node --format=esm --packages=external \
//     --outfile=dist/sendInProcess.mjs && node dist/sendInProcess.mjs [txs per round] [rounds]
import { readFileSync } from 'node:fs';
import { DEFAULT_RPC_LIMITS, handleBody } from '../src/rpc/server/jsonrpc.ts';
import { inProcessTokenNode } from './lib/inProcess.ts';
import { WRITE_KINDS, writeTxs } from './workloads/writes.ts';

const perRound = Number(process.argv[2] ?? 3000);
const rounds = Number(process.argv[3] ?? 4);
const IN_FLIGHT = 32;

/** CPU time of this process's main thread in ms (Linux clock ticks of 10 ms). */
function mainThreadMs(): number {
  const f = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

const node = await inProcessTokenNode();
try {
  const { tn, chain, accounts: senders, token } = node;
  const kind = WRITE_KINDS.find((k) => k.id === 'write.erc20.inflight')!;
  const meta = { transport: 'http' as const, authorized: false };
  let id = 0;
  const call = async (method: string, params: unknown[]): Promise<unknown> => {
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }));
    const r = handleBody(body, tn.node.dispatcher, meta, DEFAULT_RPC_LIMITS);
    const reply = JSON.parse((r instanceof Promise ? await r : r)!) as {
      result?: unknown;
      error?: { message: string };
    };
    if (reply.error) throw new Error(`${method}: ${reply.error.message}`);
    return reply.result;
  };
  for (let round = 0; round < rounds; round++) {
    const perSender = await writeTxs(chain, kind, senders, perRound, token);
    // Round-robin over the senders, as sendAll orders them.
    const longest = Math.max(...perSender.map((l) => l.length));
    const queue = Array.from({ length: longest }, (_, k) => perSender.map((l) => l[k]))
      .flat()
      .filter((t) => t !== undefined);
    const blocks0 = Number(await call('eth_blockNumber', []));
    const cpu0 = process.cpuUsage();
    const main0 = mainThreadMs();
    let next = 0;
    let mined = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < queue.length) {
          const tx = queue[next++]!;
          await call('eth_sendRawTransaction', [tx.raw]);
          for (let delay = 1; !(await call('eth_getTransactionReceipt', [tx.hash])); delay = Math.min(delay * 2, 16))
            await new Promise((resolve) => setTimeout(resolve, delay));
          mined++;
        }
      }),
    );
    const cpu = process.cpuUsage(cpu0);
    const main = mainThreadMs() - main0;
    const blocks = Number(await call('eth_blockNumber', [])) - blocks0;
    console.log(
      `round ${round}: ${mined} mined in ${blocks} blocks, main thread ${((main * 1000) / mined).toFixed(0)} us/tx, ` +
        `process ${((cpu.user + cpu.system) / mined).toFixed(0)} us/tx`,
    );
  }
} finally {
  await node.close();
}
