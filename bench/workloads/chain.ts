// A node under test as the workloads see it: its RPC client, chain id, nonces, and contract deployment.
import { RpcClient, sleep } from '../lib/rpc.ts';
import { signLegacy, type Account } from '../lib/tx.ts';
import type { RunningNode } from '../nodes/types.ts';

/** A running node plus what every workload asks of it first. */
export interface Chain {
  node: RunningNode;
  client: RpcClient;
  chainId: bigint;
}

/** Opens a client on the node and reads its chain id (transactions are signed for it). */
export async function openChain(node: RunningNode): Promise<Chain> {
  const client = new RpcClient(node.url, 60_000, 8);
  const chainId = BigInt(await client.call<string>('eth_chainId'));
  return { node, client, chainId };
}

/** The next nonce of each account. */
export function nonces(chain: Chain, accounts: Account[]): Promise<number[]> {
  return Promise.all(
    accounts.map(async (a) =>
      Number(await chain.client.call<string>('eth_getTransactionCount', [a.address, 'latest'])),
    ),
  );
}

/** Polls for a receipt for at most `timeoutMs`; throws when none arrives. */
export async function waitReceipt(
  chain: Chain,
  hash: string,
  timeoutMs: number,
): Promise<{ status: string; contractAddress: string | null; blockNumber: string }> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const r = await chain.client.call<{ status: string; contractAddress: string | null; blockNumber: string } | null>(
      'eth_getTransactionReceipt',
      [hash],
    );
    if (r) return r;
    await sleep(10);
  }
  throw new Error(`${chain.node.name}: no receipt for ${hash} within ${timeoutMs} ms`);
}

/** Deploys creation code from `account`; resolves to the contract address. */
export async function deploy(chain: Chain, account: Account, code: string, timeoutMs = 30_000): Promise<string> {
  const [nonce] = await nonces(chain, [account]);
  const tx = signLegacy(account, chain.chainId, { nonce: nonce!, gas: 3_000_000n, to: null, value: 0n, data: code });
  await chain.client.call('eth_sendRawTransaction', [tx.raw]);
  const r = await waitReceipt(chain, tx.hash, timeoutMs);
  if (r.status !== '0x1' || !r.contractAddress)
    throw new Error(`${chain.node.name}: deployment failed: ${JSON.stringify(r)}`);
  return r.contractAddress;
}
