// The fee oracle behind eth_gasPrice, eth_maxPriorityFeePerGas, eth_feeHistory and the fee defaults of the signing
// methods: tips paid in recent blocks, and the base fee and fullness of a range of blocks.
import { effectiveGasPrice } from '../../app/evm/executor.ts';
import { blobBaseFee, blobScheduleOf, nextBlobBaseFee } from '../../app/evm/forkConfig.ts';
import { type Fork, GAS_PER_BLOB } from '../../evm/index.ts';
import type { FeeSuggestion } from '../../keystore/txDefaults.ts';
import type { BlockRecord } from '../../store/records.ts';

/** How many recent blocks the tip suggestion looks at. */
const ORACLE_BLOCKS = 20n;

/** The chain as the oracle reads it. */
export interface FeeChain {
  head(): BlockRecord;
  blockByNumber(n: bigint): BlockRecord | undefined;
  receipts(block: BlockRecord): { gasUsed: bigint }[];
}

/** The fee market's current figures (minGasPrice changes with miner_setGasPrice). */
export interface FeeMarket {
  nextBaseFee(): bigint;
  readonly minGasPrice: bigint;
}

/** eth_feeHistory's figures for a range of blocks, oldest first. */
export interface FeeHistory {
  oldest: bigint;
  /** One per block, then the base fee of the block after the newest. */
  baseFees: bigint[];
  gasUsedRatios: number[];
  /** One per block, then the blob base fee of the block after the newest (EIP-7918's rule on Osaka). */
  blobBaseFees: bigint[];
  /** Blob gas used over the fork's blob gas limit, per block. */
  blobGasUsedRatios: number[];
  /** Per block, the tip at each requested percentile of gas used (present when percentiles were asked for). */
  rewards?: bigint[][];
}

function byValue(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Suggests fees from the recent chain. */
export class FeeOracle {
  constructor(
    private readonly chain: FeeChain,
    private readonly market: FeeMarket,
    /** The most blocks one eth_feeHistory answer covers. */
    private readonly historyCap: bigint,
    /** The chain's fork: its blob schedule and blob fee rule. */
    private readonly fork: Fork,
  ) {}

  /** Suggested priority fee: the 60th percentile of tips paid over the last 20 blocks (0 on an idle chain). */
  suggestTip(): bigint {
    const head = this.chain.head().number;
    const tips: bigint[] = [];
    for (let n = head; n >= 0n && n > head - ORACLE_BLOCKS; n--) {
      const b = this.chain.blockByNumber(n);
      if (b) tips.push(...tipsOf(b));
    }
    if (tips.length === 0) return 0n;
    tips.sort(byValue);
    return tips[Math.floor((tips.length - 1) * 0.6)]!;
  }

  /** eth_gasPrice: next base fee + suggested tip, never below the node's minimum gas price. */
  gasPrice(): bigint {
    const p = this.market.nextBaseFee() + this.suggestTip();
    return p > this.market.minGasPrice ? p : this.market.minGasPrice;
  }

  /** The fee figures transaction defaults are filled from. */
  suggestion(): FeeSuggestion {
    return { nextBaseFee: this.market.nextBaseFee(), tip: this.suggestTip(), minGasPrice: this.market.minGasPrice };
  }

  /** Up to `count` blocks (capped) ending at `newest`; `percentiles` in [0, 100], ascending. */
  history(count: bigint, newest: BlockRecord, percentiles?: number[]): FeeHistory {
    let n = count > this.historyCap ? this.historyCap : count;
    if (n > newest.number + 1n) n = newest.number + 1n;
    const oldest = newest.number - n + 1n;
    const baseFees: bigint[] = [];
    const gasUsedRatios: number[] = [];
    const blobBaseFees: bigint[] = [];
    const blobGasUsedRatios: number[] = [];
    const rewards: bigint[][] = [];
    const maxBlobGas = Number(BigInt(blobScheduleOf(this.fork).max) * GAS_PER_BLOB);
    for (let k = oldest; k <= newest.number; k++) {
      const b = this.chain.blockByNumber(k)!;
      baseFees.push(b.header.baseFeePerGas ?? 0n);
      gasUsedRatios.push(Number(b.header.gasUsed) / Number(b.header.gasLimit));
      blobBaseFees.push(blobBaseFee(b.header.excessBlobGas ?? 0n, this.fork));
      blobGasUsedRatios.push(Number(b.header.blobGasUsed ?? 0n) / maxBlobGas);
      if (percentiles) rewards.push(rewardsOf(b, this.chain.receipts(b), percentiles));
    }
    const h = newest.header;
    baseFees.push(h.calcNextBaseFee());
    blobBaseFees.push(
      nextBlobBaseFee(
        { excessBlobGas: h.excessBlobGas ?? 0n, blobGasUsed: h.blobGasUsed ?? 0n, baseFee: h.baseFeePerGas ?? 0n },
        this.fork,
      ),
    );
    return {
      oldest,
      baseFees,
      gasUsedRatios,
      blobBaseFees,
      blobGasUsedRatios,
      rewards: percentiles ? rewards : undefined,
    };
  }
}

function tipsOf(b: BlockRecord): bigint[] {
  const base = b.header.baseFeePerGas ?? 0n;
  return b.txs.map((tx) => effectiveGasPrice(tx, base) - base);
}

/** The tip at each percentile of the block's gas used, txs ordered by tip (geth's feeHistory rewards). */
function rewardsOf(b: BlockRecord, receipts: { gasUsed: bigint }[], percentiles: number[]): bigint[] {
  const base = b.header.baseFeePerGas ?? 0n;
  if (b.txs.length === 0) return percentiles.map(() => 0n);
  const items = b.txs.map((tx, i) => ({ tip: effectiveGasPrice(tx, base) - base, gas: receipts[i]!.gasUsed }));
  items.sort((x, y) => byValue(x.tip, y.tip));
  const total = b.header.gasUsed;
  return percentiles.map((p) => {
    const threshold = (total * BigInt(Math.round(p * 1000))) / 100_000n;
    let sum = 0n;
    for (const it of items) {
      sum += it.gas;
      if (sum >= threshold) return it.tip;
    }
    return items[items.length - 1]!.tip;
  });
}
