// The senders of a churn run: each signs its txs in nonce order (one signed form per nonce, so a resend is the same
// tx) and sends them to the validators in turn; a node that fails to answer (down, paused, an error) passes the tx
// to the next, until one answers with its hash. Every hash a node returned is recorded as acknowledged.
import { signLegacy, type Account, type SignedTx } from '../../bench/lib/tx.ts';
import { transferData } from '../../bench/lib/contracts.ts';
import { rpc, sleep } from './node.ts';

/** How long a send may take before the sender tries the next node (a paused node never answers). */
const SEND_TIMEOUT_MS = 4_000;
/** Acknowledged but unmined txs a sender may have: keeps each sender within the pool's per-account bounds. */
const MAX_AHEAD = 24;

/** One sender's record. */
export interface SenderLog {
  address: string;
  /** Nonce of the sender's first tx in the run. */
  startNonce: number;
  /** Every tx a node acknowledged (returned its hash), in nonce order. */
  acked: SignedTx[];
  /** Nonce of a signed tx no node acknowledged before the run stopped (it may still be mined), if any. */
  unacked?: number;
  /** Send attempts that failed (timeout, connection refused, JSON-RPC error). */
  failures: number;
}

/** What the senders send. */
export interface LoadOptions {
  chainId: bigint;
  /** eth JSON-RPC URL of every validator. */
  urls: string[];
  senders: Account[];
  /** When set, every other tx is a transfer of this ERC20 (the senders hold its supply). */
  token?: string;
}

async function latestNonce(urls: string[], address: string): Promise<number | undefined> {
  for (const url of urls) {
    try {
      const r = await rpc<string>(url, 'eth_getTransactionCount', [address, 'latest'], { timeoutMs: 2_000 });
      if (r.result !== undefined) return Number(BigInt(r.result));
    } catch {
      // that node is down or paused: ask the next
    }
  }
  return undefined;
}

/** Runs the senders until `stop` resolves; returns each sender's log. */
export async function runSenders(o: LoadOptions, stop: Promise<void>): Promise<SenderLog[]> {
  let stopping = false;
  void stop.then(() => (stopping = true));
  const one = async (acct: Account, s: number): Promise<SenderLog> => {
    const start = await latestNonce(o.urls, acct.address);
    if (start === undefined) throw new Error(`no node answered eth_getTransactionCount for ${acct.address}`);
    const log: SenderLog = { address: acct.address, startNonce: start, acked: [], failures: 0 };
    let target = s % o.urls.length;
    let mined = start;
    for (let nonce = start; !stopping; nonce++) {
      while (!stopping && nonce - mined >= MAX_AHEAD) {
        await sleep(250);
        mined = (await latestNonce(o.urls, acct.address)) ?? mined;
      }
      if (stopping) break;
      const recipient = `0x${(0x5000 + ((s * 7919 + nonce) % 4096)).toString(16).padStart(40, '0')}`;
      const erc20 = o.token !== undefined && nonce % 2 === 1;
      const tx = signLegacy(acct, o.chainId, {
        nonce,
        gas: erc20 ? 100_000n : 21_000n,
        to: erc20 ? o.token! : recipient,
        value: erc20 ? 0n : 1n,
        data: erc20 ? transferData(recipient, 1n) : '0x',
      });
      let acked = false;
      for (let attempt = 0; !acked && !stopping; attempt++) {
        const url = o.urls[target]!;
        try {
          const r = await rpc<string>(url, 'eth_sendRawTransaction', [tx.raw], { timeoutMs: SEND_TIMEOUT_MS });
          if (r.result === tx.hash) acked = true;
          else if (r.error) {
            // An earlier attempt may have gone through after all (its answer lost): mined, or pooled somewhere.
            const got = await rpc<{ blockNumber?: string } | null>(url, 'eth_getTransactionReceipt', [tx.hash], {
              timeoutMs: SEND_TIMEOUT_MS,
            });
            if (got.result) break; // mined without an acknowledgement: not counted, not a gap
          }
        } catch {
          // no answer in time: the next node gets it
        }
        if (!acked) {
          log.failures++;
          target = (target + 1) % o.urls.length;
          await sleep(Math.min(50 * attempt, 1_000));
        }
      }
      // The next tx goes to the next validator: a sender's consecutive nonces land on different nodes, so a node
      // often holds a nonce whose predecessor another node has not gossiped yet (queued in its pool only).
      target = (target + 1) % o.urls.length;
      if (acked) log.acked.push(tx);
      else if (stopping) log.unacked = nonce;
    }
    return log;
  };
  return Promise.all(o.senders.map((a, s) => one(a, s)));
}
