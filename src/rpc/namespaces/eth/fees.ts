// Fee market methods: gas price suggestion, priority fee, fee history (EIP-1559), answered from the fee oracle.
import { toQuantity } from '../../../primitives/hex.ts';
import type { Needs } from '../../context.ts';
import { defineMethod } from '../../method.ts';
import { blockCount, blockNumberOrTag, optional, rewardPercentiles } from '../../params/index.ts';

/** What these methods use. */
type Ctx = Needs<'fees' | 'chain'>;

/** Handler for eth_gasPrice: next base fee + suggested tip, never below the node's minimum gas price. */
export const gasPrice = defineMethod({
  name: 'eth_gasPrice',
  params: [],
  handler: (ctx: Ctx) => toQuantity(ctx.fees.gasPrice()),
});

/** Handler for eth_maxPriorityFeePerGas. */
export const maxPriorityFeePerGas = defineMethod({
  name: 'eth_maxPriorityFeePerGas',
  params: [],
  handler: (ctx: Ctx) => toQuantity(ctx.fees.suggestTip()),
});

/** Handler for eth_feeHistory. */
export const feeHistory = defineMethod({
  name: 'eth_feeHistory',
  params: [blockCount, blockNumberOrTag, optional(rewardPercentiles)],
  handler: (ctx: Ctx, [count, sel, percentiles]) => {
    const newest = ctx.chain.findBlock(sel);
    if (!newest || count === 0n) {
      return { oldestBlock: '0x0', baseFeePerGas: [], gasUsedRatio: [], baseFeePerBlobGas: [], blobGasUsedRatio: [] };
    }
    const h = ctx.fees.history(count, newest, percentiles);
    const baseFees = h.baseFees.map(toQuantity);
    const out: Record<string, unknown> = {
      oldestBlock: toQuantity(h.oldest),
      baseFeePerGas: baseFees,
      gasUsedRatio: h.gasUsedRatios,
      baseFeePerBlobGas: h.blobBaseFees.map(toQuantity),
      blobGasUsedRatio: h.blobGasUsedRatios,
    };
    if (h.rewards) out.reward = h.rewards.map((r) => r.map(toQuantity));
    return out;
  },
});

export const feeMethods = [gasPrice, maxPriorityFeePerGas, feeHistory];
