// In-process CPU cost of the ERC20 write workload with 32 in flight (bench/sendCpu.ts's, without the socket): the
// bench's presigned transfers through handleBody and the node's own dispatcher on an in-process --dev node, each
// eth_sendRawTransaction followed by eth_getTransactionReceipt polls until the receipt exists, as sendAll does.
// Per round: the main thread's CPU per mined tx (what the node's JavaScript costs; signing happens before the
// clock starts) and the whole process's (with GC and compiler threads and LevelDB's), and the blocks it took.
// Round 0 warms the JIT; compare the later rounds. Two checkouts compare by running each one's build in turn.
// Run it bundled, as the node runs (tsx's keepNames wraps every closure and inflates small costs ~1.5x):
//   npx esbuild bench/sendInProcess.ts --bundle --platform=node --format=esm --packages=external \
//     --outfile=dist/sendInProcess.mjs && node dist/sendInProcess.mjs [txs per round] [rounds]
import { inProcessCall, inProcessTokenNode, sendAndPoll } from './lib/inProcess.ts';
import { cpuMs } from './lib/procCpu.ts';
import { WRITE_KINDS, writeTxs } from './workloads/writes.ts';

const perRound = Number(process.argv[2] ?? 3000);
const rounds = Number(process.argv[3] ?? 4);
const IN_FLIGHT = 32;

const node = await inProcessTokenNode();
try {
  const { tn, chain, accounts: senders, token } = node;
  const kind = WRITE_KINDS.find((k) => k.id === 'write.erc20.inflight')!;
  const call = inProcessCall(tn);
  for (let round = 0; round < rounds; round++) {
    const perSender = await writeTxs(chain, kind, senders, perRound, token);
    const blocks0 = Number(await call('eth_blockNumber', []));
    const cpu0 = process.cpuUsage();
    const main0 = cpuMs(process.pid).main;
    const mined = await sendAndPoll(call, perSender, IN_FLIGHT);
    const cpu = process.cpuUsage(cpu0);
    const main = cpuMs(process.pid).main - main0;
    const blocks = Number(await call('eth_blockNumber', [])) - blocks0;
    console.log(
      `round ${round}: ${mined} mined in ${blocks} blocks, main thread ${((main * 1000) / mined).toFixed(0)} us/tx, ` +
        `process ${((cpu.user + cpu.system) / mined).toFixed(0)} us/tx`,
    );
  }
} finally {
  await node.close();
}
