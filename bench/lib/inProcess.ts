// The in-process benches' node: a --dev node started in this process (test/helpers/testNode.ts) with the bench
// token deployed, every one of the ten dev accounts holding some, as the out-of-process benches set it up.
import { DEFAULT_RPC_LIMITS, handleBody } from '../../src/rpc/server/jsonrpc.ts';
import { createTestNode, type TestNode } from '../../test/helpers/testNode.ts';
import type { RunningNode } from '../nodes/types.ts';
import { deploy, openChain, type Chain } from '../workloads/chain.ts';
import { roundRobin } from '../workloads/send.ts';
import type { SignedTx } from './tx.ts';
import { compileContracts, tokenConstructorArgs } from './contracts.ts';
import { devAccounts, type Account } from './tx.ts';

/** An in-process node with the bench token deployed; `close()` stops it and closes the client. */
export interface TokenNode {
  tn: TestNode;
  chain: Chain;
  accounts: Account[];
  token: string;
  close(): Promise<void>;
}

/** Starts an in-process --dev node and deploys the bench token (the caller closes it). */
export async function inProcessTokenNode(): Promise<TokenNode> {
  const tn = await createTestNode();
  try {
    const handle: RunningNode = {
      name: 'kestrel',
      url: tn.url,
      pid: process.pid,
      startupMs: 0,
      logTail: () => '',
      stop: async () => {},
    };
    const chain = await openChain(handle);
    const accounts = devAccounts(10);
    const holders = accounts.map((a) => a.address);
    const token = await deploy(
      chain,
      accounts[0]!,
      compileContracts().token + tokenConstructorArgs(holders, 10n ** 30n),
    );
    return {
      tn,
      chain,
      accounts,
      token,
      async close() {
        chain.client.close();
        await tn.close();
      },
    };
  } catch (e) {
    await tn.close();
    throw e;
  }
}

/** A JSON-RPC call through the node's own body handler and dispatcher (no socket); throws on a JSON-RPC error. */
export type InProcessCall = (method: string, params: unknown[]) => Promise<unknown>;

/** The in-process call of `tn`, as an unauthenticated HTTP client's request. */
export function inProcessCall(tn: TestNode): InProcessCall {
  const meta = { transport: 'http' as const, authorized: false };
  let id = 0;
  return async (method, params) => {
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }));
    const r = handleBody(body, tn.node.dispatcher, meta, DEFAULT_RPC_LIMITS);
    const reply = JSON.parse((r instanceof Promise ? await r : r)!) as {
      result?: unknown;
      error?: { message: string };
    };
    if (reply.error) throw new Error(`${method}: ${reply.error.message}`);
    return reply.result;
  };
}

/**
 * Sends every sender's txs, round-robin as sendAll orders them, `inFlight` at a time: each eth_sendRawTransaction is
 * followed by eth_getTransactionReceipt polls (1, 2, 4 … 16 ms apart) until the receipt exists. Returns the txs mined.
 */
export async function sendAndPoll(call: InProcessCall, perSender: SignedTx[][], inFlight: number): Promise<number> {
  const queue = roundRobin(perSender);
  let next = 0;
  let mined = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < queue.length) {
        const tx = queue[next++]!;
        await call('eth_sendRawTransaction', [tx.raw]);
        for (let delay = 1; !(await call('eth_getTransactionReceipt', [tx.hash])); delay = Math.min(delay * 2, 16))
          await new Promise((resolve) => setTimeout(resolve, delay));
        mined++;
      }
    }),
  );
  return mined;
}
