// Figures of a 4-validator Kestrel + CometBFT network on loopback (not part of `npm test`; needs
// `npm run cometbft:install`):
//   node --import tsx test/bench/cometbft-figures.ts [blocks|transfers|catchup|all] [--missed=1000]
// blocks:    blocks per second over 30 s with the testnet defaults (timeout_commit 200ms).
// transfers: 500 transfers from 10 senders, each sender's transactions sent to one validator (spread over all
//            four); time from the first submission until every one is mined.
// catchup:   one validator killed while the others make --missed blocks (timeout_commit 20ms), then restarted;
//            time until it has caught up (CometBFT not catching up, at the height the others had at its restart).
import { Wallet } from 'ethers';
import { DEV_ACCOUNTS, CHAIN_ID } from '../helpers/accounts.ts';
import { cometRpc, CometNet, freePortBlock, type CometNode } from '../helpers/cometbft.ts';
import { rpcResult, sleep, waitFor } from '../helpers/node.ts';

const what = process.argv[2] ?? 'all';
const missed = Number((process.argv.find((a) => a.startsWith('--missed=')) ?? '--missed=1000').slice(9));
const GWEI = 1_000_000_000n;

async function withNet<T>(timeoutCommit: string, fn: (net: CometNet) => Promise<T>): Promise<T> {
  const net = CometNet.create({
    validators: 4,
    basePort: await freePortBlock(4),
    args: ['--timeout-commit', timeoutCommit],
  });
  try {
    await net.startAll();
    await Promise.all(net.nodes.map((n) => n.waitHeight(3, 180_000)));
    return await fn(net);
  } catch (e) {
    net.printLogs('figures failed');
    throw e;
  } finally {
    await net.dispose();
  }
}

async function blocks(net: CometNet): Promise<void> {
  const n0 = net.nodes[0]!;
  const h0 = (await n0.height())!;
  const t0 = performance.now();
  await sleep(30_000);
  const h1 = (await n0.height())!;
  const s = (performance.now() - t0) / 1000;
  console.log(
    `blocks: ${h1 - h0} blocks in ${s.toFixed(1)} s = ${((h1 - h0) / s).toFixed(2)} blocks/s (timeout_commit 200ms)`,
  );
}

async function transfers(net: CometNet): Promise<void> {
  const PER_SENDER = 50;
  const sink = '0x' + '42'.repeat(20);
  const signed = await Promise.all(
    DEV_ACCOUNTS.map(async (a) => {
      const w = new Wallet(a.privateKey);
      const list: string[] = [];
      for (let n = 0; n < PER_SENDER; n++) {
        list.push(
          await w.signTransaction({
            type: 2,
            chainId: CHAIN_ID,
            nonce: n,
            to: sink,
            value: 1n,
            gasLimit: 21_000n,
            maxFeePerGas: 10n * GWEI,
            maxPriorityFeePerGas: GWEI,
          }),
        );
      }
      return list;
    }),
  );
  const n0 = net.nodes[0]!;
  const hStart = (await n0.height())!;
  const t0 = performance.now();
  // Each sender talks to one validator, in nonce order (CheckTx wants the next nonce); senders run concurrently.
  await Promise.all(
    signed.map(async (list, i) => {
      const v = net.nodes[i % net.nodes.length]!;
      for (const raw of list) await rpcResult(v.eth, 'eth_sendRawTransaction', [raw]);
    }),
  );
  const tSent = performance.now();
  await waitFor(
    'every transfer mined',
    async () => {
      const counts = await Promise.all(
        DEV_ACCOUNTS.map((a) => rpcResult<string>(n0.eth, 'eth_getTransactionCount', [a.address, 'latest'])),
      );
      return counts.every((c) => Number(BigInt(c)) >= PER_SENDER) ? true : undefined;
    },
    600_000,
  );
  const s = (performance.now() - t0) / 1000;
  const hEnd = (await n0.height())!;
  const total = PER_SENDER * DEV_ACCOUNTS.length;
  console.log(
    `transfers: ${total} from ${DEV_ACCOUNTS.length} senders over ${net.nodes.length} validators mined in ${s.toFixed(1)} s = ` +
      `${(total / s).toFixed(1)} tx/s (submission took ${((tSent - t0) / 1000).toFixed(1)} s; ${hEnd - hStart} blocks)`,
  );
}

async function synced(n: CometNode, h: number): Promise<boolean> {
  try {
    const s = await cometRpc(n.rpc, 'status');
    return !s.sync_info.catching_up && Number(s.sync_info.latest_block_height) >= h;
  } catch {
    return false;
  }
}

async function catchup(net: CometNet): Promise<void> {
  const [n0, , , n3] = net.nodes;
  const killedAt = (await n0!.height())!;
  await n3!.kill();
  const t0 = performance.now();
  await n0!.waitHeight(killedAt + missed, 1_800_000);
  const made = (performance.now() - t0) / 1000;
  const target = (await n0!.height())!;
  const tRestart = performance.now();
  await n3!.start();
  const tStarted = performance.now();
  await waitFor('caught up', async () => ((await synced(n3!, target)) ? true : undefined), 1_800_000);
  const s = (performance.now() - tRestart) / 1000;
  const [a, b] = await Promise.all([
    cometRpc(n3!.rpc, 'block', { height: String(target) }),
    cometRpc(n0!.rpc, 'block', { height: String(target) }),
  ]);
  if (a.block_id.hash !== b.block_id.hash || a.block.header.app_hash !== b.block.header.app_hash)
    throw new Error(`block ${target} differs after catch-up`);
  console.log(
    `catchup: ${target - killedAt} missed blocks (made in ${made.toFixed(1)} s at timeout_commit 20ms); caught up ${s.toFixed(1)} s after ` +
      `the restart (app + CometBFT start took ${((tStarted - tRestart) / 1000).toFixed(1)} s), identical block ${target}`,
  );
}

if (what === 'blocks' || what === 'all') await withNet('200ms', blocks);
if (what === 'transfers' || what === 'all') await withNet('200ms', transfers);
if (what === 'catchup' || what === 'all') await withNet('20ms', catchup);
