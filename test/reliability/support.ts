// Shared pieces of the reliability tests: batched raw JSON-RPC, offline-signed transfer streams, chain
// verification (block hashes, receipts, account proofs against every state root, conserved supply) and RSS.
import { readFileSync } from 'node:fs';
import { verifyMerkleProof } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { Wallet, getBytes, keccak256 } from 'ethers';
import { CHAIN_ID, DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { computeBlockHash } from '../helpers/chain.ts';
import { post, rpcResult, sleep, type RpcResponse } from '../helpers/node.ts';

export const hex = (n: bigint | number): string => `0x${n.toString(16)}`;

/** Posts a JSON-RPC batch and returns the responses ordered like the requests; throws on a transport failure. */
export async function batch(
  url: string,
  calls: Array<[string, unknown[]]>,
  timeoutMs = 30_000,
): Promise<RpcResponse[]> {
  const body = JSON.stringify(calls.map(([method, params], id) => ({ jsonrpc: '2.0', id, method, params })));
  const res = await post(url, body, { timeoutMs });
  if (!Array.isArray(res.json)) throw new Error(`batch: HTTP ${res.status}: ${res.text.slice(0, 300)}`);
  const byId = new Map<unknown, RpcResponse>((res.json as RpcResponse[]).map((r) => [r.id, r]));
  return calls.map((_, i) => {
    const r = byId.get(i);
    if (r === undefined) throw new Error(`batch: no response for item ${i}`);
    return r;
  });
}

/** The result of a batched call, or a thrown error naming the call. */
export function resultOf<T = any>(r: RpcResponse, what: string): T {
  if (r.error !== undefined) throw new Error(`${what}: ${JSON.stringify(r.error)}`);
  return r.result as T;
}

/** Resident set size of a process in bytes (from /proc, Linux). */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmRSS:\s+(\d+) kB/.exec(status);
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) * 1024;
}

/** An acknowledged transaction: the node returned this hash from eth_sendRawTransaction. */
export interface AckedTx {
  hash: string;
  sender: string;
  nonce: number;
}

/** Fees generous enough to stay executable while the base fee moves. */
export interface FeeTerms {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** Fee terms from the node's current base fee (x4 headroom) and a 1 gwei tip. */
export async function feeTerms(url: string): Promise<FeeTerms> {
  const latest = await rpcResult<{ baseFeePerGas?: string }>(url, 'eth_getBlockByNumber', ['latest', false]);
  const baseFee = BigInt(latest.baseFeePerGas ?? '0x0');
  const tip = 10n ** 9n;
  return { maxFeePerGas: baseFee * 4n + tip, maxPriorityFeePerGas: tip };
}

/** Signs a plain value transfer offline (no node round trip). */
export async function signTransfer(
  wallet: Wallet,
  to: string,
  value: bigint,
  nonce: number,
  fees: FeeTerms,
): Promise<{ raw: string; hash: string }> {
  const raw = await wallet.signTransaction({
    type: 2,
    chainId: BigInt(CHAIN_ID),
    nonce,
    to,
    value,
    gasLimit: 21_000n,
    data: '0x',
    ...fees,
  });
  return { raw, hash: keccak256(raw) };
}

/**
 * A stream of transfers from each of `senders` to the next dev account, until stop() or until the node stops
 * answering. Every hash the node acknowledged is recorded in `acked`.
 */
export class TransferStream {
  readonly acked: AckedTx[] = [];
  /** Error responses other than the expected nonce races (each is a finding). */
  readonly unexpected: string[] = [];
  private stopped = false;
  private loops: Promise<void>[] = [];

  constructor(
    private readonly senders: readonly string[],
    private readonly pauseMs: number,
  ) {}

  /** Starts one loop per sender against `url`, each from the sender's pending nonce. */
  start(url: string, fees: FeeTerms): void {
    this.stopped = false;
    this.loops = this.senders.map((pk, i) =>
      this.loop(url, new Wallet(pk), DEV_ACCOUNTS[(i + 1) % DEV_ACCOUNTS.length]!.address, fees),
    );
  }

  /** Asks the loops to finish and waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }

  /** Waits for the loops to end by themselves (they end when the node stops answering). */
  async drained(): Promise<void> {
    await Promise.all(this.loops);
  }

  private async loop(url: string, wallet: Wallet, to: string, fees: FeeTerms): Promise<void> {
    let nonce: number;
    try {
      nonce = Number(BigInt(await rpcResult<string>(url, 'eth_getTransactionCount', [wallet.address, 'pending'])));
    } catch {
      return;
    }
    let value = 1n;
    while (!this.stopped) {
      const { raw, hash } = await signTransfer(wallet, to, value++, nonce, fees);
      let r: RpcResponse;
      try {
        const res = await post(
          url,
          JSON.stringify({ jsonrpc: '2.0', id: nonce, method: 'eth_sendRawTransaction', params: [raw] }),
          { timeoutMs: 10_000 },
        );
        if (res.json === undefined) throw new Error(`HTTP ${res.status}`);
        r = res.json as RpcResponse;
      } catch {
        return; // the node is gone (killed) or not answering: this round is over for this sender
      }
      if (r.error === undefined) {
        if (r.result !== hash)
          this.unexpected.push(`${wallet.address} nonce ${nonce}: returned ${String(r.result)}, expected ${hash}`);
        this.acked.push({ hash, sender: wallet.address, nonce });
        nonce++;
      } else if (/nonce too low|already known/.test(r.error.message)) {
        try {
          nonce = Number(BigInt(await rpcResult<string>(url, 'eth_getTransactionCount', [wallet.address, 'pending'])));
        } catch {
          return;
        }
      } else {
        this.unexpected.push(`${wallet.address} nonce ${nonce}: ${JSON.stringify(r.error)}`);
        await sleep(100);
      }
      if (this.pauseMs > 0) await sleep(this.pauseMs);
    }
  }
}

const big = (b: Uint8Array): bigint => (b.length === 0 ? 0n : BigInt('0x' + Buffer.from(b).toString('hex')));

/** Proves `address` against `stateRoot` with an eth_getProof answer; returns the proven balance (0 when absent). */
export async function provenBalance(proof: any, stateRoot: string): Promise<bigint> {
  const value = await verifyMerkleProof(
    getBytes(proof.address),
    proof.accountProof.map((p: string) => getBytes(p)),
    {
      root: getBytes(stateRoot),
      useKeyHashing: true,
    },
  );
  if (value === null) return 0n;
  const [, balance] = RLP.decode(value) as Uint8Array[];
  return big(balance!);
}

/** What verifyBlocks saw. */
export interface VerifiedRange {
  head: number;
  headHash: string;
  txCount: number;
}

/**
 * Verifies blocks from..to: each block's hash recomputes from its header and links to its parent, it has one
 * receipt per tx, every address in `accounts` is proven against its stateRoot (so the state trie at that root is
 * present and hashes to it), and their proven balances sum to `supply`.
 */
export async function verifyBlocks(
  url: string,
  from: number,
  to: number,
  accounts: readonly string[],
  supply: bigint,
): Promise<VerifiedRange> {
  let txCount = 0;
  let headHash = '';
  let prevHash: string | undefined;
  if (from > 0)
    prevHash = resultOf<any>(
      (await batch(url, [['eth_getBlockByNumber', [hex(from - 1), false]]]))[0]!,
      `block ${from - 1}`,
    ).hash;
  for (let n = from; n <= to; n++) {
    const calls: Array<[string, unknown[]]> = [
      ['eth_getBlockByNumber', [hex(n), false]],
      ['eth_getBlockReceipts', [hex(n)]],
      ...accounts.map((a): [string, unknown[]] => ['eth_getProof', [a, [], hex(n)]]),
    ];
    const rs = await batch(url, calls);
    const block = resultOf<any>(rs[0]!, `block ${n}`);
    if (block === null) throw new Error(`block ${n} is missing (verifying ${from}..${to})`);
    if (computeBlockHash(block) !== block.hash) throw new Error(`block ${n}: hash does not recompute from its header`);
    if (prevHash !== undefined && block.parentHash !== prevHash)
      throw new Error(`block ${n}: parentHash does not link to block ${n - 1}`);
    const receipts = resultOf<any[]>(rs[1]!, `receipts of ${n}`);
    if (receipts === null || receipts.length !== block.transactions.length) {
      throw new Error(`block ${n}: ${receipts?.length ?? 'no'} receipts for ${block.transactions.length} txs`);
    }
    receipts.forEach((r, i) => {
      if (r.transactionHash !== block.transactions[i]) throw new Error(`block ${n}: receipt ${i} is for another tx`);
    });
    let sum = 0n;
    for (let i = 0; i < accounts.length; i++) {
      sum += await provenBalance(resultOf(rs[2 + i]!, `proof of ${accounts[i]} at ${n}`), block.stateRoot);
    }
    if (sum !== supply)
      throw new Error(`block ${n}: balances sum to ${sum}, genesis supply is ${supply} (off by ${sum - supply})`);
    txCount += block.transactions.length;
    prevHash = block.hash;
    headHash = block.hash;
  }
  return { head: to, headHash, txCount };
}

/**
 * The invariants a node must hold after every restart of a crash test, checked incrementally: the head never goes
 * below the verified range and its last block keeps its hash; every block from there to the new head verifies
 * (verifyBlocks); every acknowledged tx is mined or pending again.
 */
export class RestartAudit {
  verifiedTo = -1;
  lastHeadHash = '';
  /** Acknowledged txs not yet seen in a block. */
  unresolved: AckedTx[] = [];
  /** Hash → block number of every acknowledged tx seen mined. */
  readonly mined = new Map<string, number>();

  constructor(
    private readonly accounts: readonly string[],
    private readonly supply: bigint,
  ) {}

  /** Checks a freshly (re)started node at `url`; extends the verified range to its head. */
  async check(url: string, what: string): Promise<void> {
    const head = Number(BigInt(await rpcResult<string>(url, 'eth_blockNumber')));
    if (head < this.verifiedTo)
      throw new Error(`${what}: head ${head} went back below the verified ${this.verifiedTo}`);
    if (this.verifiedTo >= 0) {
      const b = await rpcResult<any>(url, 'eth_getBlockByNumber', [hex(this.verifiedTo), false]);
      if (b.hash !== this.lastHeadHash)
        throw new Error(`${what}: block ${this.verifiedTo} changed hash across the restart`);
    }
    const v = await verifyBlocks(url, Math.max(0, this.verifiedTo), head, this.accounts, this.supply);
    this.verifiedTo = head;
    this.lastHeadHash = v.headHash;
    const pending: AckedTx[] = [];
    for (let i = 0; i < this.unresolved.length; i += 200) {
      const part = this.unresolved.slice(i, i + 200);
      const rs = await batch(
        url,
        part.map((t): [string, unknown[]] => ['eth_getTransactionByHash', [t.hash]]),
      );
      part.forEach((t, j) => {
        const tx = resultOf<any>(rs[j]!, `tx ${t.hash}`);
        if (tx === null)
          throw new Error(
            `${what}: acknowledged tx ${t.hash} (${t.sender} nonce ${t.nonce}) is neither mined nor pending`,
          );
        if (tx.blockNumber === null) pending.push(t);
        else this.mined.set(t.hash, Number(BigInt(tx.blockNumber)));
      });
    }
    this.unresolved = pending;
  }

  /** Forgets the verified range above `height` (after an evm_revert that took the chain back there). */
  rewoundTo(height: number, hash: string): void {
    if (height < this.verifiedTo) {
      this.verifiedTo = height;
      this.lastHeadHash = hash;
    }
  }
}
