// eth_syncing under CometBFT: whether this node is catching up, from CometBFT's own view. `status` says whether
// it is catching up (block sync or state sync); the network's height is not in `status`, so it comes from the
// peers' consensus heights that `dump_consensus_state` lists (a peer working on height h has committed h − 1).

/** geth's eth_syncing object (the fields a proof-of-stake node can fill). */
export interface SyncProgress {
  startingBlock: bigint;
  currentBlock: bigint;
  highestBlock: bigint;
}

/** One JSON-RPC call to CometBFT; resolves to `result`. */
export type CometCall = (method: string) => Promise<unknown>;

/** A CometCall over HTTP POST to `rpcUrl` (http://host:port). */
export function httpCometCall(rpcUrl: string, timeoutMs = 2_000): CometCall {
  return async (method) => {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: {} }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = (await res.json()) as { result?: unknown; error?: { message?: string; data?: string } };
    if (body.error) throw new Error(`CometBFT ${method}: ${body.error.data || body.error.message}`);
    return body.result;
  };
}

/** Highest committed height among the peers of a `dump_consensus_state` answer (0 when none is known). */
export function highestPeerHeight(dump: unknown): bigint {
  const peers =
    (dump as { peers?: Array<{ peer_state?: { round_state?: { height?: string } } }> } | undefined)?.peers ?? [];
  let best = 0n;
  for (const p of peers) {
    const h = p.peer_state?.round_state?.height;
    if (typeof h === 'string' && /^\d+$/.test(h) && BigInt(h) - 1n > best) best = BigInt(h) - 1n;
  }
  return best;
}

/** Tracks CometBFT's catch-up; answers are cached briefly so a polling client does not hammer CometBFT. */
export class CometSyncStatus {
  private cached?: { at: number; value: Promise<SyncProgress | false> };
  /** The app's height when the current catch-up was first seen (geth's startingBlock). */
  private startedAt?: bigint;

  constructor(
    private readonly call: CometCall,
    private readonly appHeight: () => bigint,
    private readonly cacheMs = 500,
    private readonly now: () => number = Date.now,
  ) {}

  /** false when caught up (or CometBFT is unreachable: this node then serves what it has), else the progress. */
  progress(): Promise<SyncProgress | false> {
    const t = this.now();
    if (this.cached && t - this.cached.at < this.cacheMs) return this.cached.value;
    const value = this.fetch();
    this.cached = { at: t, value };
    return value;
  }

  private async fetch(): Promise<SyncProgress | false> {
    let catchingUp: boolean;
    let cometHeight: bigint;
    try {
      const s = (await this.call('status')) as { sync_info?: { catching_up?: boolean; latest_block_height?: string } };
      catchingUp = s.sync_info?.catching_up === true;
      cometHeight = BigInt(s.sync_info?.latest_block_height ?? '0');
    } catch {
      return false;
    }
    const current = this.appHeight();
    if (!catchingUp) {
      this.startedAt = undefined;
      return false;
    }
    this.startedAt ??= current;
    let peers = 0n;
    try {
      peers = highestPeerHeight(await this.call('dump_consensus_state'));
    } catch {
      // Peer heights are an estimate: without them the highest block known is CometBFT's own store height.
    }
    const highest = [peers, cometHeight, current].reduce((a, b) => (b > a ? b : a));
    return { startingBlock: this.startedAt, currentBlock: current, highestBlock: highest };
  }
}
