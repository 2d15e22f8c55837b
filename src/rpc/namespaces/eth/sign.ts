// eth_ methods that sign with the node's keys: eth_sign (EIP-191), eth_signTypedData_v4 (EIP-712),
// eth_sendTransaction and eth_signTransaction. They need the account unlocked (personal_unlockAccount, or --dev);
// the signing itself is the node signer's (rpc/services/signer.ts), shared with the personal_ variants.
import type { TypedTransaction } from '@ethereumjs/tx';
import { parseTypedData } from '../../../keystore/typedData.ts';
import { bytesToHex } from '../../../primitives/hex.ts';
import type { Needs } from '../../context.ts';
import { formatTx } from '../../format/tx.ts';
import { defineMethod } from '../../method.ts';
import { address, bytes, callRequest, codec } from '../../params/index.ts';
import { decodeTransaction } from '../../../primitives/tx/decode.ts';

/** What these methods use. */
type Ctx = Needs<'signer'>;

/** geth's SignTransactionResult: the RLP/typed encoding and the transaction object. */
export function signResult({ tx, from }: { tx: TypedTransaction; from: Uint8Array }): Record<string, unknown> {
  const d = decodeTransaction(tx.serialize());
  const json = formatTx(d.tx, from, d.hash);
  for (const k of ['blockHash', 'blockNumber', 'blockTimestamp', 'transactionIndex', 'from']) delete json[k];
  if (tx.type >= 2) delete json['gasPrice'];
  return { raw: bytesToHex(d.encoded), tx: json };
}

/** Handler for eth_sign: EIP-191 signature by an unlocked account (v = 27/28). */
export const sign = defineMethod({
  name: 'eth_sign',
  params: [address, bytes],
  handler: (ctx: Ctx, [addr, data]) => bytesToHex(ctx.signer.signMessage(addr, data)),
});

/** eth_signTypedData_v4's document: an object, or a string holding one. */
const typedData = codec((raw) => parseTypedData(raw));

/** Handler for eth_signTypedData_v4: EIP-712 signature by an unlocked account (65 bytes, v = 27/28). */
export const signTypedDataV4 = defineMethod({
  name: 'eth_signTypedData_v4',
  params: [address, typedData],
  handler: (ctx: Ctx, [addr, td]) => bytesToHex(ctx.signer.signTypedData(addr, td)),
});

/** Handler for eth_sendTransaction: defaults filled, signed by the unlocked `from` account, submitted. */
export const sendTransaction = defineMethod({
  name: 'eth_sendTransaction',
  params: [callRequest],
  handler: async (ctx: Ctx, [req]) => bytesToHex(await ctx.signer.send(req)),
});

/** Handler for eth_signTransaction: {raw, tx} without submitting. */
export const signTransactionMethod = defineMethod({
  name: 'eth_signTransaction',
  params: [callRequest],
  handler: async (ctx: Ctx, [req]) => signResult(await ctx.signer.signTx(req)),
});

/** The eth_ methods that sign with the node's keys. */
export const signMethods = [sign, signTypedDataV4, sendTransaction, signTransactionMethod];
