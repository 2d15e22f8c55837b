// Validator churn under load: four validators (kestreld testnet on free ports) take txs from several senders while
// one validator at a time is perturbed (kill -9 of the app, kill -9 of CometBFT, SIGSTOP/SIGCONT, a restart, a
// restart with an empty CometBFT address book). Afterwards: which acknowledged txs were mined (and how often), each
// sender's final nonce, and whether all nodes agree on every block. Used by churnNetwork.test.ts and `npm run churn`.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTomlValue } from '../../src/config/appToml.ts';
import { homePaths } from '../../src/node/home.ts';
import { compileContracts, tokenConstructorArgs } from '../../bench/lib/contracts.ts';
import { devAccounts, signLegacy, type Account } from '../../bench/lib/tx.ts';
import { CHAIN_ID } from './accounts.ts';
import { runSenders, type SenderLog } from './churnLoad.ts';
import { leakedSecrets, networkSecrets } from './secretsGrep.ts';
import { cometRpc, CometNet, freePortBlock, type CometNode } from './cometbft.ts';
import { rpcResult, sleep, waitFor, waitForReceipt } from './node.ts';

/** The perturbations, applied in this order, each to the next validator. */
export type Perturbation = 'killApp' | 'killComet' | 'pause' | 'restart' | 'emptyAddressBook';

/** A churn run's settings. */
export interface ChurnOptions {
  seconds: number;
  senders: number;
  /** Seconds between two perturbations. */
  everySeconds: number;
  perturbations: Perturbation[];
  erc20: boolean;
  /** How long the network gets to mine every acknowledged tx after the load stops. */
  settleSeconds: number;
  /** The baseline without the pool journal ([mempool] journal = false on every node). */
  noJournal?: boolean;
  log?: (line: string) => void;
}

/** What a churn run measured. */
export interface ChurnResult {
  perturbed: string[];
  acknowledged: number;
  /** Acknowledged txs found in no block. */
  lost: string[];
  /** Acknowledged txs found in more than one place. */
  duplicated: string[];
  /** Senders whose final nonce is below their last acknowledged + 1. */
  stuck: string[];
  /** Heights where the nodes disagree on hash, state root or receipts root. */
  disagreements: string[];
  blocks: number;
  longestGapSeconds: number;
  txPerSecond: number;
  minedAcknowledged: number;
  sendFailures: number;
  loadSeconds: number;
  /** Secrets (tokens, validator/node keys, sender keys) found in any node's logs: each is a finding. */
  leaked: string[];
  /** How many secrets the logs were grepped for. */
  secretsChecked: number;
  net: CometNet;
}

/** Applies one perturbation to `n` and brings it back. */
async function perturb(n: CometNode, p: Perturbation): Promise<void> {
  switch (p) {
    case 'killApp':
      await n.killApp();
      await n.cometStopsAfterApp(3_000);
      await sleep(1_000);
      await n.start();
      return;
    case 'killComet':
      await n.killComet();
      await sleep(1_000);
      n.startComet();
      return;
    case 'pause':
      n.pause(true);
      await sleep(10_000);
      n.pause(false);
      return;
    case 'restart':
    case 'emptyAddressBook':
      await n.stop();
      if (p === 'emptyAddressBook')
        rmSync(join(n.net.dir, n.spec.cometHome, 'config', 'addrbook.json'), { force: true });
      await n.start();
      return;
  }
}

/** CometBFT header times (ms) of heights from..to on `n`. */
async function blockTimes(n: CometNode, from: number, to: number): Promise<number[]> {
  const times: number[] = [];
  for (let lo = from; lo <= to; lo += 20) {
    const hi = Math.min(to, lo + 19);
    const r = await cometRpc(n.rpc, 'blockchain', { minHeight: String(lo), maxHeight: String(hi) });
    const metas = (r.block_metas as Array<{ header: { height: string; time: string } }>).slice().reverse();
    for (const m of metas) times.push(Date.parse(m.header.time));
  }
  return times;
}

/** Deploys the bench ERC20 with the senders as holders; returns its address. */
async function deployToken(url: string, senders: Account[]): Promise<string> {
  const deployer = senders[0]!;
  const nonce = Number(BigInt(await rpcResult<string>(url, 'eth_getTransactionCount', [deployer.address, 'latest'])));
  const data =
    compileContracts().token +
    tokenConstructorArgs(
      senders.map((s) => s.address),
      10n ** 24n,
    );
  const tx = signLegacy(deployer, BigInt(CHAIN_ID), { nonce, gas: 3_000_000n, to: null, value: 0n, data });
  await rpcResult(url, 'eth_sendRawTransaction', [tx.raw]);
  const r = await waitForReceipt(url, tx.hash, 60_000);
  if (r.status !== '0x1') throw new Error('token deployment reverted');
  return r.contractAddress as string;
}

/** Runs in parallel, at most `width` at a time. */
async function inBatches<T>(items: number[], width: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let k = 0; k < items.length; k += width) out.push(...(await Promise.all(items.slice(k, k + width).map(fn))));
  return out;
}

/** Lays out and starts the network, runs the load under churn, settles and checks. The caller disposes `net`. */
export async function runChurn(o: ChurnOptions): Promise<ChurnResult> {
  const log = o.log ?? (() => {});
  const net = CometNet.create({ validators: 4, basePort: await freePortBlock(4) });
  if (o.noJournal)
    for (const n of net.nodes)
      setTomlValue(homePaths(join(net.dir, n.spec.appHome)).appToml, 'mempool', 'journal', false);
  try {
    await net.startAll();
    await Promise.all(net.nodes.map((n) => n.waitHeight(2, 120_000)));
  } catch (e) {
    net.printLogs('startup failed');
    await net.dispose();
    throw e;
  }
  const urls = net.nodes.map((n) => n.eth);
  const senders = devAccounts(o.senders + 1).slice(1); // account 0 deploys the token and stays out of the load
  const token = o.erc20 ? await deployToken(urls[0]!, devAccounts(o.senders + 1)) : undefined;
  const startHeight = (await net.nodes[0]!.height())!;
  const t0 = Date.now();
  let stopLoad!: () => void;
  const stop = new Promise<void>((r) => (stopLoad = r));
  const load = runSenders({ chainId: BigInt(CHAIN_ID), urls, senders, token }, stop);
  const perturbed: string[] = [];
  for (let k = 0; Date.now() - t0 + o.everySeconds * 1000 <= o.seconds * 1000; k++) {
    await sleep(Math.max(0, t0 + (k + 1) * o.everySeconds * 1000 - Date.now()));
    const n = net.nodes[k % net.nodes.length]!;
    const p = o.perturbations[k % o.perturbations.length]!;
    log(`${((Date.now() - t0) / 1000).toFixed(0)} s: ${p} ${n.name}`);
    await perturb(n, p);
    perturbed.push(`${p} ${n.name}`);
  }
  await sleep(Math.max(0, t0 + o.seconds * 1000 - Date.now()));
  stopLoad();
  const logs: SenderLog[] = await load;
  const loadSeconds = (Date.now() - t0) / 1000;
  const acknowledged = logs.reduce((a, l) => a + l.acked.length, 0);
  log(`load stopped after ${loadSeconds.toFixed(0)} s: ${acknowledged} txs acknowledged`);

  // Settle: every sender's nonce at its last acknowledged + 1 on node0 (or the time is up).
  const want = (l: SenderLog) => (l.acked.length > 0 ? l.acked[l.acked.length - 1]!.nonce + 1 : l.startNonce);
  const nonceOf = async (l: SenderLog) =>
    Number(BigInt(await rpcResult<string>(urls[0]!, 'eth_getTransactionCount', [l.address, 'latest'])));
  try {
    await waitFor(
      'every acknowledged tx mined',
      async () => {
        await sleep(500);
        const got = await Promise.all(logs.map(nonceOf)).catch(() => undefined);
        return got?.every((g, i) => g >= want(logs[i]!)) ? true : undefined;
      },
      o.settleSeconds * 1000,
    );
  } catch {
    log('settle timed out');
  }
  const stuck: string[] = [];
  for (const l of logs) {
    const got = await nonceOf(l);
    if (got < want(l)) stuck.push(`${l.address}: nonce ${got}, last acknowledged ${want(l) - 1}`);
  }

  // Every node at node0's height, then compare every block and collect the mined tx hashes.
  const end = (await net.nodes[0]!.height())!;
  await Promise.all(net.nodes.map((n) => n.waitCaughtUp(end, 120_000)));
  const heights = Array.from({ length: end }, (_, i) => i + 1);
  const seen = new Map<string, number>();
  const disagreements: string[] = [];
  await inBatches(heights, 16, async (h) => {
    const blocks = await Promise.all(
      urls.map((u) => rpcResult(u, 'eth_getBlockByNumber', [`0x${h.toString(16)}`, false])),
    );
    const key = (b: any) => `${b.hash} ${b.stateRoot} ${b.receiptsRoot}`;
    if (blocks.some((b) => key(b) !== key(blocks[0])))
      disagreements.push(`height ${h}: ${blocks.map(key).join(' | ')}`);
    for (const t of blocks[0].transactions as string[]) seen.set(t, (seen.get(t) ?? 0) + 1);
  });
  const lost: string[] = [];
  const duplicated: string[] = [];
  let minedAcknowledged = 0;
  for (const l of logs) {
    for (const t of l.acked) {
      const c = seen.get(t.hash) ?? 0;
      if (c === 0) lost.push(`${t.hash} (${l.address} nonce ${t.nonce})`);
      if (c > 1) duplicated.push(t.hash);
      if (c > 0) minedAcknowledged++;
    }
  }
  const times = await blockTimes(net.nodes[0]!, startHeight, end);
  const senderKeys = devAccounts(o.senders + 1).map((a) => a.privateKey);
  let longestGapMs = 0;
  for (let i = 1; i < times.length; i++) longestGapMs = Math.max(longestGapMs, times[i]! - times[i - 1]!);
  return {
    perturbed,
    acknowledged,
    lost,
    duplicated,
    stuck,
    disagreements,
    blocks: end - startHeight,
    longestGapSeconds: longestGapMs / 1000,
    txPerSecond: minedAcknowledged / loadSeconds,
    minedAcknowledged,
    sendFailures: logs.reduce((a, l) => a + l.failures, 0),
    loadSeconds,
    leaked: leakedSecrets(net, senderKeys),
    secretsChecked: networkSecrets(net, senderKeys).length,
    net,
  };
}

/** The figures of a run as one line. */
export function churnSummary(r: ChurnResult): string {
  return (
    `${r.perturbed.length} perturbations; ${r.acknowledged} txs acknowledged, ${r.minedAcknowledged} mined, ` +
    `${r.lost.length} lost, ${r.duplicated.length} mined twice; ${r.stuck.length} senders stuck; ` +
    `${r.blocks} blocks, longest gap ${r.longestGapSeconds.toFixed(1)} s; ${r.txPerSecond.toFixed(1)} tx/s ` +
    `over ${r.loadSeconds.toFixed(0)} s; ${r.sendFailures} failed send attempts; ${r.disagreements.length} disagreements; ` +
    `${r.leaked.length} of ${r.secretsChecked} secrets found in the logs`
  );
}
