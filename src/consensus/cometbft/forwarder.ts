// Hands the node's locally submitted txs to CometBFT (broadcast_tx_sync: CheckTx through CometBFT's mempool,
// then gossip). CometBFT refuses nonce gaps, so only txs executable on top of the pool go; a tx with a future
// nonce waits in the txpool (queued) and goes once the gap is filled. All broadcasts run one at a time, in each
// sender's nonce order. Never awaited inside an ABCI handler: CometBFT holds its mempool lock across Commit and
// the rechecks, so a broadcast from there would deadlock.
import type { CheckedTx } from '../../app/app.ts';
import type { ExecTx } from '../../app/evm/executor.ts';
import { rejectCode } from '../../abci/codes.ts';
import { TxRejectedError } from '../../errors/index.ts';
import type { TxPool } from '../../mempool/pool.ts';
import { bytesToHex } from '../../primitives/hex.ts';
import { encodeTx } from '../../primitives/tx/encode.ts';

/** CometBFT could not be reached: the tx stays pooled and is offered again later. */
export class CometUnreachableError extends TxRejectedError {
  override name = 'CometUnreachableError';
  constructor(message: string) {
    super('consensusUnreachable', message);
  }
}

/** What CometBFT's broadcast_tx_sync answered. */
export interface BroadcastResult {
  code: number;
  log: string;
  codespace: string;
}

/** Calls broadcast_tx_sync on a CometBFT RPC endpoint. */
export async function broadcastTxSync(rpcUrl: string, raw: Uint8Array, timeoutMs = 30_000): Promise<BroadcastResult> {
  let body: {
    result?: { code?: number; log?: string; codespace?: string };
    error?: { message: string; data?: string };
  };
  try {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'broadcast_tx_sync',
        params: { tx: Buffer.from(raw).toString('base64') },
      }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    body = (await res.json()) as typeof body;
  } catch (e) {
    throw new CometUnreachableError(`CometBFT RPC ${rpcUrl} unreachable: ${(e as Error).message}`);
  }
  if (body.error) {
    const data = body.error.data ?? '';
    // A tx CometBFT already holds (e.g. it came back from a peer first) is in its mempool: that is success.
    if (/tx already exists in cache/.test(data)) return { code: 0, log: '', codespace: '' };
    throw new TxRejectedError('consensusRefused', `CometBFT refused the transaction: ${data || body.error.message}`);
  }
  const r = body.result ?? {};
  return { code: r.code ?? 0, log: r.log ?? '', codespace: r.codespace ?? '' };
}

/** CometBFT's RPC as http://host:port from tcp://host:port or an http(s) URL. */
export function cometRpcUrl(addr: string): string {
  const m = /^(tcp|http|https):\/\/([^/]+?)\/?$/.exec(addr);
  if (!m) throw new Error(`invalid CometBFT RPC address "${addr}": expected tcp://host:port or http://host:port`);
  return `${m[1] === 'https' ? 'https' : 'http'}://${m[2]}`;
}

const SDK_CODESPACE = 'sdk';
/** The ABCI code of a sequence (nonce) refusal. */
const WRONG_SEQUENCE = rejectCode('nonceTooLow');

/** Forwards executable pooled txs to CometBFT. */
export class CometForwarder {
  private readonly sent = new Map<string, Promise<void>>();
  /** Why CometBFT refused a tx, until its submitter (if any) reads it. */
  private readonly failures = new Map<string, Error>();
  /** Blocks each sender's next tx has waited unmined, by hash (see reofferStalled). */
  private waited = new Map<string, number>();
  /** Txs offered again after a stall: a refusal of one of those leaves it pooled (CometBFT may hold it still). */
  private readonly reoffered = new Set<string>();
  private tail: Promise<void> = Promise.resolve();
  private stopped = false;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly pool: TxPool,
    private readonly broadcast: (raw: Uint8Array) => Promise<BroadcastResult>,
    private readonly log: (line: string) => void = (l) => console.warn(l),
  ) {}

  /** Marks a tx CometBFT already has (it reached this node's CheckTx through CometBFT). */
  markKnown(hash: Uint8Array): void {
    if (!this.sent.has(bytesToHex(hash))) this.sent.set(bytesToHex(hash), Promise.resolve());
  }

  /**
   * Called once `tx` is in the pool: forwards it if it is executable (resolving when CometBFT accepted it,
   * rejecting with CometBFT's reason), or leaves it queued behind its nonce gap.
   */
  async submitted(tx: CheckedTx): Promise<void> {
    await this.pump();
    const key = bytesToHex(tx.hash);
    const failure = this.failures.get(key);
    this.failures.delete(key);
    if (failure) throw failure;
  }

  /** Forwards every executable tx not yet forwarded (after a commit, a queued tx may have become executable). */
  pump(): Promise<void> {
    const run = this.tail.then(() => this.forwardAll());
    this.tail = run.catch(() => {});
    return this.tail;
  }

  /**
   * Also pumps every `intervalMs`: txs restored from the journal at start, and txs whose broadcast found CometBFT
   * unreachable, go out without waiting for a block.
   */
  start(intervalMs = 2000): void {
    this.timer = setInterval(() => void this.pump(), intervalMs);
    this.timer.unref();
  }

  /** Stops forwarding (node shutdown). */
  stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    return this.tail;
  }

  /**
   * Offers every pooled tx again: CometBFT (re)started, and its mempool is not persisted. Txs it still has are
   * answered "already exists in cache", which counts as sent.
   */
  resend(): void {
    this.sent.clear();
  }

  /**
   * Called after each commit: a sender's next tx (its nonce is the account's) that is still unmined after `patience`
   * blocks is offered to CometBFT again, with the sender's later txs behind it. CometBFT may have lost it (its
   * mempool did not survive a restart, or a recheck evicted it while a predecessor was missing) and no peer gossips
   * it again by itself; meanwhile this node may hold the sender's later nonces, which wait on it. A copy CometBFT
   * still holds is answered "already exists in cache", which costs nothing.
   */
  reofferStalled(patience = 5): void {
    const waited = new Map<string, number>();
    for (const s of this.pool.content()) {
      const head = s.pending[0];
      if (!head) continue;
      const key = bytesToHex(head.hash);
      const n = (this.waited.get(key) ?? 0) + 1;
      if (n < patience || !this.sent.has(key)) {
        waited.set(key, n);
        continue;
      }
      waited.set(key, 0);
      for (const t of s.pending) {
        const k = bytesToHex(t.hash);
        this.sent.delete(k);
        this.reoffered.add(k);
      }
    }
    this.waited = waited;
  }

  /** Forgets txs that are no longer pooled (mined or dropped). */
  prune(): void {
    const pooled = (key: string) => this.pool.get(Uint8Array.from(Buffer.from(key.slice(2), 'hex'))) !== undefined;
    for (const key of this.sent.keys()) if (!pooled(key)) this.sent.delete(key);
    for (const key of this.reoffered) if (!pooled(key)) this.reoffered.delete(key);
  }

  private async forwardAll(): Promise<void> {
    const txs: ExecTx[] = this.pool.executable(2n ** 63n);
    // A sender whose tx did not go this round: its later nonces would only meet CometBFT's nonce-gap refusal.
    const blocked = new Set<string>();
    for (const item of txs) {
      if (this.stopped) return;
      const key = bytesToHex(item.hash);
      const sender = bytesToHex(item.sender);
      if (this.sent.has(key) || blocked.has(sender)) continue;
      const attempt = this.send(item);
      this.sent.set(key, attempt);
      try {
        await attempt;
      } catch {
        blocked.add(sender);
      }
    }
  }

  private async send(item: ExecTx): Promise<void> {
    const again = this.reoffered.delete(bytesToHex(item.hash));
    let r: BroadcastResult;
    try {
      r = await this.broadcast(item.encoded ?? encodeTx(item.tx));
    } catch (e) {
      if (!(e instanceof CometUnreachableError)) {
        this.drop(item, e as Error);
        throw e;
      }
      // Not CometBFT's verdict: keep the tx pooled and unsent; a waiting submitter still hears why.
      this.sent.delete(bytesToHex(item.hash));
      this.remember(bytesToHex(item.hash), e);
      throw e;
    }
    if (r.code !== 0) {
      // A re-offered tx CometBFT refuses (its copy left the cache but not the mempool, or a predecessor is missing
      // there) stays pooled: it was acknowledged, and the next stall offers it again. So does any tx refused for its
      // sequence, and its submitter hears that it is pooled: it is executable on the committed state (the pool holds only those), so CometBFT's check state is
      // ahead of it, counting txs its mempool holds or held before a restart (a churn run lost 48 acknowledged txs of
      // a sender this way, each dropped as "nonce too low" a few seconds after its node's CometBFT came back). If
      // another tx with the nonce is mined instead, the pool lets this one go at that commit.
      if (again || (r.codespace === SDK_CODESPACE && r.code === WRONG_SEQUENCE))
        throw new TxRejectedError('consensusRefused', r.log);
      const err = new TxRejectedError('consensusRefused', r.log || `CometBFT CheckTx failed with code ${r.code}`);
      this.drop(item, err);
      throw err;
    }
  }

  private drop(item: ExecTx, err: Error): void {
    const key = bytesToHex(item.hash);
    this.pool.remove(item.hash);
    this.sent.delete(key);
    this.remember(key, err);
    this.log(`txpool: ${key} not forwarded to CometBFT: ${err.message}`);
  }

  private remember(key: string, err: Error): void {
    // Bounded: failures of txs nobody waits for (restored from the journal) must not accumulate.
    if (this.failures.size >= 10_000) this.failures.clear();
    this.failures.set(key, err);
  }
}
