// eth_fillTransaction: the unsigned transaction eth_sendTransaction would sign, with every default filled and the
// gas estimated (geth's FillTransaction), for wallets that sign elsewhere.
import { LATEST } from '../../../primitives/blockSelector.ts';
import { buildUnsignedTx, fillTxDefaults } from '../../../keystore/txDefaults.ts';
import { keccak256 } from '../../../primitives/hash.ts';
import { bytesToHex } from '../../../primitives/hex.ts';
import type { Needs } from '../../context.ts';
import { formatTx } from '../../format/tx.ts';
import { defineMethod } from '../../method.ts';
import { callRequest } from '../../params/index.ts';
import { decodeTransaction } from '../../../primitives/tx/decode.ts';

const ZERO_ADDRESS = new Uint8Array(20);

/** What this method uses. */
type Ctx = Needs<'signer' | 'calls' | 'chain' | 'common'>;

/** Handler for eth_fillTransaction: {raw, tx} of the unsigned transaction. */
export const fillTransaction = defineMethod({
  name: 'eth_fillTransaction',
  params: [callRequest],
  handler: async (ctx: Ctx, [req]) => {
    const from = req.from ?? ZERO_ADDRESS;
    const filled = await fillTxDefaults(req, from, ctx.signer.defaults());
    if (req.gas === undefined) {
      const priced =
        filled.gasPrice !== undefined
          ? { gasPrice: filled.gasPrice }
          : { maxFeePerGas: filled.maxFeePerGas, maxPriorityFeePerGas: filled.maxPriorityFeePerGas };
      filled.gasLimit = await ctx.calls.estimateGas({ ...req, from, ...priced }, ctx.chain.resolveBlock(LATEST));
    }
    const tx = buildUnsignedTx(filled, ctx.common);
    const raw = tx.serialize();
    const json = formatTx(decodeTransaction(raw).tx, from, keccak256(raw));
    // The spec's transaction schemas require gasPrice also for 1559 txs: it stays (= maxFeePerGas, as for pending txs).
    for (const k of ['blockHash', 'blockNumber', 'blockTimestamp', 'transactionIndex', 'from']) delete json[k];
    return { raw: bytesToHex(raw), tx: json };
  },
});

export const fillMethods = [fillTransaction];
