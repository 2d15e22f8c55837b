// Raw transaction building for tests that talk JSON-RPC directly: sign offline with ethers, submit with
// eth_sendRawTransaction, wait for the receipt. Fees come from the node (baseFee, maxPriorityFeePerGas).
import { Wallet, keccak256, type TransactionRequest } from 'ethers';
import { CHAIN_ID } from './accounts.ts';
import { rpcResult, waitForReceipt } from './node.ts';

export interface TxOptions {
  to?: string | null;
  value?: bigint;
  data?: string;
  gas?: bigint;
  nonce?: number;
  type?: 0 | 1 | 2;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
}

/** Signs a transaction for `url`'s chain; unspecified fields are filled from the node. */
export async function signTx(
  url: string,
  privateKey: string,
  o: TxOptions = {},
): Promise<{ raw: string; hash: string; nonce: number }> {
  const w = new Wallet(privateKey);
  const nonce =
    o.nonce ?? Number(BigInt(await rpcResult<string>(url, 'eth_getTransactionCount', [w.address, 'pending'])));
  const type = o.type ?? 2;
  const req: TransactionRequest = {
    type,
    chainId: BigInt(CHAIN_ID),
    nonce,
    to: o.to === undefined ? null : o.to,
    value: o.value ?? 0n,
    data: o.data ?? '0x',
    gasLimit: o.gas ?? 21_000n,
  };
  if (type === 2) {
    const latest = await rpcResult<{ baseFeePerGas?: string }>(url, 'eth_getBlockByNumber', ['latest', false]);
    const baseFee = BigInt(latest.baseFeePerGas ?? '0x0');
    const tip = o.maxPriorityFeePerGas ?? BigInt(await rpcResult<string>(url, 'eth_maxPriorityFeePerGas'));
    req.maxPriorityFeePerGas = tip;
    req.maxFeePerGas = o.maxFeePerGas ?? baseFee * 2n + tip;
  } else {
    req.gasPrice = o.gasPrice ?? BigInt(await rpcResult<string>(url, 'eth_gasPrice'));
    if (type === 1) req.accessList = [];
  }
  const raw = await w.signTransaction(req);
  return { raw, hash: keccak256(raw), nonce };
}

/** Signs, submits and waits for the receipt. Throws if submission fails. */
export async function sendTx(
  url: string,
  privateKey: string,
  o: TxOptions = {},
): Promise<{ hash: string; raw: string; receipt: any }> {
  const { raw, hash } = await signTx(url, privateKey, o);
  const got = await rpcResult<string>(url, 'eth_sendRawTransaction', [raw]);
  if (got !== hash) throw new Error(`eth_sendRawTransaction returned ${got}, expected ${hash}`);
  const receipt = await waitForReceipt(url, hash);
  return { hash, raw, receipt };
}
