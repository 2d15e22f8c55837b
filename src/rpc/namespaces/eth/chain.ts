// eth_ chain facts: ids, head, sync status, coinbase, accounts.
import { bytesToHex, toQuantity } from '../../../primitives/hex.ts';
import type { Needs } from '../../context.ts';
import { defineMethod } from '../../method.ts';

/** What these methods use. */
type Ctx = Needs<'accounts' | 'app' | 'chain' | 'config' | 'syncStatus'>;

/** Handler for eth_chainId. */
export const chainId = defineMethod({
  name: 'eth_chainId',
  params: [],
  handler: (ctx: Ctx) => toQuantity(ctx.config.evmChainId),
});

/** Handler for eth_blockNumber. */
export const blockNumber = defineMethod({
  name: 'eth_blockNumber',
  params: [],
  handler: (ctx: Ctx) => toQuantity(ctx.chain.head().number),
});

/** Handler for eth_protocolVersion (0x41 = eth/65, as Ethermint answers). */
export const protocolVersion = defineMethod({ name: 'eth_protocolVersion', params: [], handler: () => '0x41' });

/** Handler for eth_syncing: false when caught up (a solo node always is); under CometBFT its catch-up progress. */
export const syncing = defineMethod({
  name: 'eth_syncing',
  params: [],
  handler: async (ctx: Ctx) => {
    const p = ctx.syncStatus ? await ctx.syncStatus.progress() : false;
    if (p === false) return false;
    return {
      startingBlock: toQuantity(p.startingBlock),
      currentBlock: toQuantity(p.currentBlock),
      highestBlock: toQuantity(p.highestBlock),
    };
  },
});

/** Handler for eth_coinbase: the etherbase that receives fees. */
export const coinbase = defineMethod({
  name: 'eth_coinbase',
  params: [],
  handler: (ctx: Ctx) => bytesToHex(ctx.app.etherbase),
});

/** Handler for eth_accounts: the key store's accounts. */
export const accounts = defineMethod({
  name: 'eth_accounts',
  params: [],
  handler: (ctx: Ctx) => ctx.accounts().map((a) => bytesToHex(a)),
});

/** Handler for eth_mining: blocks are produced by the validator, not mined. */
export const mining = defineMethod({ name: 'eth_mining', params: [], handler: () => false });

/** Handler for eth_hashrate. */
export const hashrate = defineMethod({ name: 'eth_hashrate', params: [], handler: () => '0x0' });

export const chainMethods = [chainId, blockNumber, protocolVersion, syncing, coinbase, accounts, mining, hashrate];
