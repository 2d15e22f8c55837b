// Block building order: every sender's executable run, merged across senders by effective tip (highest first)
// while each sender keeps its nonce order, up to the block gas limit.
import type { ExecTx } from '../app/evm/executor.ts';
import { feeCap, tipCap } from '../app/evm/validate.ts';

/** A tx that can be selected, with the time it entered the pool (earlier wins a tie, as in geth). */
export interface Selectable extends ExecTx {
  addedAt: number;
}

/** What the next block charges and accepts. */
export interface SelectRules {
  gasLimit: bigint;
  /** Base fee of the next block; txs whose fee cap is below it wait (they are not invalid). */
  baseFee?: bigint;
  /** Minimum gas price; txs whose fee cap is below it wait. */
  minGasPrice?: bigint;
}

/** The tip a tx pays the block producer at `baseFee`: min(tip cap, fee cap − base fee). */
export function effectiveTip(t: ExecTx, baseFee: bigint | undefined): bigint {
  const tip = tipCap(t.tx);
  if (baseFee === undefined) return tip;
  const room = feeCap(t.tx) - baseFee;
  return room < tip ? room : tip;
}

interface Head {
  run: Selectable[];
  i: number;
  tip: bigint;
}

const before = (a: Head, b: Head): boolean =>
  a.tip > b.tip || (a.tip === b.tip && a.run[a.i]!.addedAt < b.run[b.i]!.addedAt);

/** Picks txs for a block from the senders' executable runs (each in nonce order). */
export function selectForBlock(runs: Selectable[][], rules: SelectRules): ExecTx[] {
  const floor = rules.minGasPrice ?? 0n;
  const payable = (t: Selectable) =>
    feeCap(t.tx) >= floor && (rules.baseFee === undefined || feeCap(t.tx) >= rules.baseFee);
  const heap: Head[] = [];
  const push = (h: Head) => {
    heap.push(h);
    for (let k = heap.length - 1; k > 0;) {
      const p = (k - 1) >> 1;
      if (!before(heap[k]!, heap[p]!)) break;
      [heap[k], heap[p]] = [heap[p]!, heap[k]!];
      k = p;
    }
  };
  const pop = (): Head => {
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      for (let k = 0; ;) {
        const l = 2 * k + 1;
        const r = l + 1;
        let m = k;
        if (l < heap.length && before(heap[l]!, heap[m]!)) m = l;
        if (r < heap.length && before(heap[r]!, heap[m]!)) m = r;
        if (m === k) break;
        [heap[k], heap[m]] = [heap[m]!, heap[k]!];
        k = m;
      }
    }
    return top;
  };
  for (const run of runs) {
    if (run.length > 0 && payable(run[0]!)) push({ run, i: 0, tip: effectiveTip(run[0]!, rules.baseFee) });
  }
  const out: ExecTx[] = [];
  let gas = 0n;
  while (heap.length > 0) {
    const h = pop();
    const t = h.run[h.i]!;
    // A sender whose next tx does not fit is done for this block: its later nonces cannot go first.
    if (gas + t.tx.gasLimit > rules.gasLimit) continue;
    gas += t.tx.gasLimit;
    out.push(t);
    if (++h.i < h.run.length && payable(h.run[h.i]!)) {
      h.tip = effectiveTip(h.run[h.i]!, rules.baseFee);
      push(h);
    }
    if (rules.gasLimit - gas < 21_000n) break;
  }
  return out;
}
