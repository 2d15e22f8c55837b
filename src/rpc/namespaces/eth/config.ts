// What the node runs and holds: the next block's fees, the fork configuration (EIP-7910) and the data ranges it
// serves (eth_capabilities).
import { chainFork } from '../../../app/evm/common.ts';
import { blobBaseFee, currentFork, type ForkConfig } from '../../../app/evm/forkConfig.ts';
import { bytesToHex, toQuantity } from '../../../primitives/hex.ts';
import type { Needs } from '../../context.ts';
import { defineMethod } from '../../method.ts';

/** What these methods use. */
type Ctx = Needs<'app' | 'chain' | 'config' | 'common'>;

/** Handler for eth_baseFee: the base fee of the next block. */
export const baseFee = defineMethod({
  name: 'eth_baseFee',
  params: [],
  handler: (ctx: Ctx) => toQuantity(ctx.app.nextBaseFee()),
});

/**
 * Handler for eth_blobBaseFee: the blob base fee from the head's excess blob gas under the chain's blob schedule,
 * as geth answers. Kestrel's blocks carry no blobs, so the excess stays 0 (EIP-7918's reserve price only slows
 * its fall) and the fee is the 1-wei minimum.
 */
export const blobBaseFeeMethod = defineMethod({
  name: 'eth_blobBaseFee',
  params: [],
  handler: (ctx: Ctx) => toQuantity(blobBaseFee(ctx.chain.head().header.excessBlobGas ?? 0n, chainFork(ctx.common))),
});

function formatFork(f: ForkConfig): Record<string, unknown> {
  return {
    activationTime: Number(f.activationTime),
    blobSchedule: {
      target: f.blobSchedule.target,
      max: f.blobSchedule.max,
      baseFeeUpdateFraction: Number(f.blobSchedule.baseFeeUpdateFraction),
    },
    chainId: toQuantity(f.chainId),
    forkId: bytesToHex(f.forkHash),
    precompiles: Object.fromEntries(f.precompiles.map(([name, a]) => [name, bytesToHex(a)])),
    systemContracts: Object.fromEntries(f.systemContracts.map(([name, a]) => [name, bytesToHex(a)])),
  };
}

/** Handler for eth_config (EIP-7910): the fork the chain's genesis names, in force from block 0; none follows. */
export const config = defineMethod({
  name: 'eth_config',
  params: [],
  handler: (ctx: Ctx) => {
    const genesis = ctx.chain.firstBlock();
    const fork = currentFork(ctx.config.evmChainId, genesis.hash, chainFork(ctx.common));
    return { current: formatFork(fork), next: null, last: null };
  },
});

/**
 * Handler for eth_capabilities: blocks, transactions, receipts and logs are always kept from genesis; state (and so
 * proofs) too on an archive node, else the states of the `pruning-keep-recent` latest blocks (a sliding window).
 */
export const capabilities = defineMethod({
  name: 'eth_capabilities',
  params: [],
  handler: (ctx: Ctx) => {
    const head = ctx.chain.head();
    const all = { disabled: false, oldestBlock: '0x0' };
    const { mode, keepRecent } = ctx.config.pruning;
    const window = BigInt(keepRecent);
    const state =
      mode === 'archive'
        ? all
        : {
            disabled: false,
            oldestBlock: toQuantity(head.number + 1n > window ? head.number + 1n - window : 0n),
            deleteStrategy: { type: 'window', retentionBlocks: toQuantity(window) },
          };
    return {
      head: { number: toQuantity(head.number), hash: bytesToHex(head.hash) },
      state,
      tx: all,
      logs: all,
      receipts: all,
      blocks: all,
      stateproofs: state,
    };
  },
});

export const configMethods = [baseFee, blobBaseFeeMethod, config, capabilities];
