// The in-process benches' node: a --dev node started in this process (test/helpers/testNode.ts) with the bench
// token deployed, every one of the ten dev accounts holding some, as the out-of-process benches set it up.
import { createTestNode, type TestNode } from '../../test/helpers/testNode.ts';
import type { RunningNode } from '../nodes/types.ts';
import { deploy, openChain, type Chain } from '../workloads/chain.ts';
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
