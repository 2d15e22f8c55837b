// Fee market methods: gas price suggestion, priority fee, fee history (EIP-1559).
import type { BlockRecord } from '../../../store/records.ts';
import { effectiveGasPrice } from '../../../app/evm/executor.ts';
import { toQuantity } from '../../../primitives/hex.ts';
import type { RpcContext } from '../../context.ts';
import { defineMethod } from '../../method.ts';
import { blockCount, blockNumberOrTag, optional, rewardPercentiles } from '../../params/index.ts';

const ORACLE_BLOCKS = 20n;

function tipsOf(b: BlockRecord): bigint[] {
  const base = b.header.baseFeePerGas ?? 0n;
  return b.txs.map((tx) => effectiveGasPrice(tx, base) - base);
}

/** Suggested priority fee: the 60th percentile of tips paid over the last 20 blocks (0 on an idle chain). */
export function suggestTip(ctx: RpcContext): bigint {
  const head = ctx.chain.head().number;
  const tips: bigint[] = [];
  for (let n = head; n >= 0n && n > head - ORACLE_BLOCKS; n--) {
    const b = ctx.chain.blockByNumber(n);
    if (b) tips.push(...tipsOf(b));
  }
  if (tips.length === 0) return 0n;
  tips.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return tips[Math.floor((tips.length - 1) * 0.6)]!;
}

/** Handler for eth_gasPrice: next base fee + suggested tip, never below the node's minimum gas price. */
export const gasPrice = defineMethod({
  name: 'eth_gasPrice',
  params: [],
  handler: (ctx: RpcContext) => {
    const p = ctx.app.nextBaseFee() + suggestTip(ctx);
    return toQuantity(p > ctx.app.minGasPrice ? p : ctx.app.minGasPrice);
  },
});

/** Handler for eth_maxPriorityFeePerGas. */
export const maxPriorityFeePerGas = defineMethod({
  name: 'eth_maxPriorityFeePerGas',
  params: [],
  handler: (ctx: RpcContext) => toQuantity(suggestTip(ctx)),
});

function rewards(b: BlockRecord, receiptsGas: bigint[], percentiles: number[]): string[] {
  const base = b.header.baseFeePerGas ?? 0n;
  if (b.txs.length === 0) return percentiles.map(() => '0x0');
  const items = b.txs.map((tx, i) => ({ tip: effectiveGasPrice(tx, base) - base, gas: receiptsGas[i]! }));
  items.sort((x, y) => (x.tip < y.tip ? -1 : x.tip > y.tip ? 1 : 0));
  const total = b.header.gasUsed;
  return percentiles.map((p) => {
    const threshold = (total * BigInt(Math.round(p * 1000))) / 100_000n;
    let sum = 0n;
    for (const it of items) {
      sum += it.gas;
      if (sum >= threshold) return toQuantity(it.tip);
    }
    return toQuantity(items[items.length - 1]!.tip);
  });
}

/** Handler for eth_feeHistory. */
export const feeHistory = defineMethod({
  name: 'eth_feeHistory',
  params: [blockCount, blockNumberOrTag, optional(rewardPercentiles)],
  handler: (ctx: RpcContext, [count, sel, percentiles]) => {
    const newest = ctx.chain.findBlock(sel);
    if (!newest || count === 0n) {
      return { oldestBlock: '0x0', baseFeePerGas: [], gasUsedRatio: [], baseFeePerBlobGas: [], blobGasUsedRatio: [] };
    }
    let n = count > BigInt(ctx.config.jsonRpc.feeHistoryCap) ? BigInt(ctx.config.jsonRpc.feeHistoryCap) : count;
    if (n > newest.number + 1n) n = newest.number + 1n;
    const oldest = newest.number - n + 1n;
    const baseFees: string[] = [];
    const ratios: number[] = [];
    const reward: string[][] = [];
    for (let k = oldest; k <= newest.number; k++) {
      const b = ctx.chain.blockByNumber(k)!;
      baseFees.push(toQuantity(b.header.baseFeePerGas ?? 0n));
      ratios.push(Number(b.header.gasUsed) / Number(b.header.gasLimit));
      if (percentiles)
        reward.push(
          rewards(
            b,
            ctx.chain.receipts(b).map((r) => r.gasUsed),
            percentiles,
          ),
        );
    }
    baseFees.push(toQuantity(newest.header.calcNextBaseFee()));
    const out: Record<string, unknown> = {
      oldestBlock: toQuantity(oldest),
      baseFeePerGas: baseFees,
      gasUsedRatio: ratios,
      baseFeePerBlobGas: baseFees.map(() => '0x0'),
      blobGasUsedRatio: ratios.map(() => 0),
    };
    if (percentiles) out.reward = reward;
    return out;
  },
});

export const feeMethods = [gasPrice, maxPriorityFeePerGas, feeHistory];
