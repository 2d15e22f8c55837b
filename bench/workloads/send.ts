// Sends pre-signed transactions with eth_sendRawTransaction and waits until every accepted one has a receipt,
// either one transaction in flight per sender or a fixed number in flight across all senders, each send then awaiting
// its receipt; or a fixed number in flight with a receipt polled once per batch (issue 27's target 2), the mined
// ones counted from the senders' nonces at the end. Bounded: when no new receipt arrives for `stallMs` the run stops
// and says so, and every request has its own deadline.
import { RpcCallError, RpcClient, sleep } from '../lib/rpc.ts';
import type { SignedTx } from '../lib/tx.ts';

/**
 * awaited: each sender waits for its receipt before its next tx; inflight: `inflight` txs outstanding at once, each
 * send followed by its receipt; batched: `inflight` sends outstanding at once and no receipt per tx, only the
 * receipt of every `batch`-th tx sent and, at the end, of each sender's last (then each sender's nonce says how many
 * of its txs were mined).
 */
export type SendMode = 'awaited' | 'inflight' | 'batched';

/** What happened to a batch of transactions. */
export interface SendOutcome {
  total: number;
  /** Transactions with a receipt (successful or reverted). */
  mined: number;
  /** Receipts with status 0 (batched: of the receipts polled). */
  reverted: number;
  /** eth_sendRawTransaction answered with an error. */
  rejected: number;
  /** eth_sendRawTransaction got no answer within the request deadline. */
  unanswered: number;
  /** The run stopped because no receipt arrived for stallMs. */
  stalled: boolean;
  /** The run stopped at maxMs with receipts still arriving (a slow node, not a stuck one). */
  timedOut: boolean;
  /** From the first send to the last receipt (or to the stall). */
  seconds: number;
  /** Up to three distinct rejection messages. */
  errors: string[];
  /** eth_getTransactionReceipt calls made (answered or not): what the wait for receipts cost the node. */
  receiptPolls: number;
}

/** Options of sendAll. */
export interface SendOptions {
  mode: SendMode;
  inflight: number;
  stallMs: number;
  /** Bound on the whole run. */
  maxMs: number;
  requestTimeoutMs: number;
  /** batched: the receipt of every this many-th tx sent is polled (default 500). */
  batch?: number;
}

/** Sends every transaction of `perSender` (each list in nonce order) and waits for the receipts. */
export async function sendAll(url: string, perSender: SignedTx[][], opts: SendOptions): Promise<SendOutcome> {
  const client = new RpcClient(url, opts.requestTimeoutMs, Math.max(opts.inflight, perSender.length) + 4);
  const out: SendOutcome = {
    total: perSender.reduce((a, l) => a + l.length, 0),
    mined: 0,
    reverted: 0,
    rejected: 0,
    unanswered: 0,
    stalled: false,
    timedOut: false,
    seconds: 0,
    errors: [],
    receiptPolls: 0,
  };
  const t0 = performance.now();
  let lastProgress = t0;
  let lastReceiptAt = t0;
  let aborted = false;
  const watchdog = setInterval(() => {
    const now = performance.now();
    if (now - lastProgress > opts.stallMs) {
      aborted = true;
      out.stalled = true;
    } else if (now - t0 > opts.maxMs) {
      aborted = true;
      out.timedOut = true;
    }
  }, 100);

  const noteError = (msg: string) => {
    if (out.errors.length < 3 && !out.errors.includes(msg)) out.errors.push(msg);
  };

  /** Sends one tx; true when the node accepted it. */
  const send = async (tx: SignedTx): Promise<boolean> => {
    try {
      await client.call('eth_sendRawTransaction', [tx.raw]);
      return true;
    } catch (e) {
      if (e instanceof RpcCallError) {
        out.rejected++;
        noteError(e.rpcMessage.slice(0, 160));
      } else {
        out.unanswered++;
        noteError(`no answer: ${(e as Error).message.slice(0, 120)}`);
      }
      return false;
    }
  };

  /** Polls the receipt with a short backoff until it exists or the run is aborted. */
  const awaitReceipt = async (hash: string): Promise<void> => {
    let delay = 1;
    while (!aborted) {
      let receipt: { status?: string } | null = null;
      out.receiptPolls++;
      try {
        receipt = await client.call<{ status?: string } | null>('eth_getTransactionReceipt', [hash]);
      } catch {
        /* a timed-out poll counts as "not yet"; the watchdog bounds the wait */
      }
      if (receipt) {
        out.mined++;
        if (receipt.status === '0x0') out.reverted++;
        lastProgress = lastReceiptAt = performance.now();
        return;
      }
      await sleep(delay);
      delay = Math.min(delay * 2, 16);
    }
  };

  try {
    if (opts.mode === 'awaited') {
      await Promise.all(
        perSender.map(async (txs) => {
          for (const tx of txs) {
            if (aborted) return;
            // A rejected nonce leaves a gap: this sender's later transactions could never be mined.
            if (!(await send(tx))) return;
            await awaitReceipt(tx.hash);
          }
        }),
      );
    } else if (opts.mode === 'batched') {
      const progress = () => {
        lastProgress = performance.now();
      };
      await sendBatched(client, perSender, opts, { send, awaitReceipt, aborted: () => aborted, progress, out });
    } else {
      const queue = roundRobin(perSender);
      let next = 0;
      await Promise.all(
        Array.from({ length: opts.inflight }, async () => {
          while (!aborted && next < queue.length) {
            const tx = queue[next++]!;
            if (await send(tx)) await awaitReceipt(tx.hash);
            else lastProgress = performance.now();
          }
        }),
      );
    }
  } finally {
    clearInterval(watchdog);
    client.close();
  }
  out.seconds = ((out.stalled || out.timedOut ? performance.now() : lastReceiptAt) - t0) / 1000;
  return out;
}

/**
 * The batched mode of sendAll: `inflight` concurrent loops send the round-robin queue without waiting for receipts,
 * the loop that sent every `batch`-th tx awaits its receipt first; at the end each sender's last accepted tx's
 * receipt is awaited, and each sender's nonce (eth_getTransactionCount at latest) counts its mined txs.
 */
async function sendBatched(
  client: RpcClient,
  perSender: SignedTx[][],
  opts: SendOptions,
  run: {
    send: (tx: SignedTx) => Promise<boolean>;
    awaitReceipt: (hash: string) => Promise<void>;
    aborted: () => boolean;
    /** Marks progress for the stall watchdog. */
    progress: () => void;
    out: SendOutcome;
  },
): Promise<void> {
  const { send, awaitReceipt, aborted, progress, out } = run;
  const batch = opts.batch ?? 500;
  const queue = roundRobin(perSender);
  /** Per sender, the last accepted tx (txs after a rejected one can never be mined: not awaited). */
  const last = new Map<string, SignedTx>();
  const gap = new Set<string>();
  let next = 0;
  await Promise.all(
    Array.from({ length: opts.inflight }, async () => {
      while (!aborted() && next < queue.length) {
        const at = next++;
        const tx = queue[at]!;
        if (await send(tx)) {
          // An accepted send is progress here: receipts are polled once per batch only.
          progress();
          if (!gap.has(tx.from)) last.set(tx.from, tx);
          if ((at + 1) % batch === 0) await awaitReceipt(tx.hash);
        } else gap.add(tx.from);
      }
    }),
  );
  await Promise.all([...last.values()].map((tx) => awaitReceipt(tx.hash)));
  // awaitReceipt counted the polled receipts as mined: the nonces count them all instead.
  out.mined = 0;
  for (const txs of perSender) {
    if (txs.length === 0) continue;
    const nonce = Number(await client.call<string>('eth_getTransactionCount', [txs[0]!.from, 'latest']));
    out.mined += Math.max(0, Math.min(txs.length, nonce - txs[0]!.nonce));
  }
}

/** Interleaves the senders' lists: s0n0, s1n0, …, s0n1, s1n1, … (so concurrent txs of one sender are adjacent nonces). */
export function roundRobin<T>(lists: T[][]): T[] {
  const out: T[] = [];
  const longest = Math.max(0, ...lists.map((l) => l.length));
  for (let i = 0; i < longest; i++) for (const l of lists) if (i < l.length) out.push(l[i]!);
  return out;
}
