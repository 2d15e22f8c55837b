// eth_ methods that sign with the node's keys: eth_sign (EIP-191), eth_sendTransaction and eth_signTransaction.
// They need the account unlocked (personal_unlockAccount, or --dev); the personal_ variants pass a passphrase and
// reuse the helpers below. Signed transactions enter through ctx.txs.submitRaw, exactly as eth_sendRawTransaction.
import type { TypedTransaction } from '@ethereumjs/tx';
import { signHash, signPersonalMessage, signTransaction } from '../../../keystore/signer.ts';
import { parseTypedData, typedDataDigest } from '../../../keystore/typedData.ts';
import {
  buildUnsignedTx,
  fillTxDefaults,
  requireSignFields,
  type TxDefaultsSource,
} from '../../../keystore/txDefaults.ts';
import type { CallRequest } from '../../../primitives/callRequest.ts';
import { bytesToHex } from '../../../primitives/hex.ts';
import type { RpcContext } from '../../context.ts';
import { formatTx } from '../../format/tx.ts';
import { defineMethod } from '../../method.ts';
import { address, bytes, callRequest, codec } from '../../params/index.ts';
import { suggestTip } from './fees.ts';

const ZERO_ADDRESS = new Uint8Array(20);

/** Where transaction defaults come from on this node. */
export function defaultsSource(ctx: RpcContext): TxDefaultsSource {
  return {
    chainId: ctx.config.evmChainId,
    pendingNonce: (a) => ctx.txs.pendingNonce(a),
    fees: () => ({ nextBaseFee: ctx.app.nextBaseFee(), tip: suggestTip(ctx), minGasPrice: ctx.app.minGasPrice }),
  };
}

/** Decrypts with the passphrase for this one call, or takes the unlocked key; runs `fn`, wiping a one-shot key. */
async function withKey<T>(
  ctx: RpcContext,
  from: Uint8Array,
  passphrase: string | undefined,
  fn: (key: () => Uint8Array) => Promise<T>,
): Promise<T> {
  if (passphrase === undefined) {
    ctx.keystore.unlockedKey(from); // fail fast when locked, before touching the nonce
    // Fetched again at signing time: the account may have been locked meanwhile.
    return fn(() => ctx.keystore.unlockedKey(from));
  }
  const key = await ctx.keystore.decrypt(from, passphrase);
  try {
    return await fn(() => key);
  } finally {
    key.fill(0);
  }
}

/** Fills defaults, signs with the account's key and submits; returns the tx hash (eth_ and personal_sendTransaction). */
export async function sendFromKeyStore(ctx: RpcContext, req: CallRequest, passphrase?: string): Promise<Uint8Array> {
  const from = req.from ?? ZERO_ADDRESS;
  if (passphrase === undefined && ctx.dev?.isImpersonated(from) && !ctx.keystore.isUnlocked(from)) {
    const dev = ctx.dev;
    const hash = await ctx.keystore.exclusive(from, async () => {
      const filled = await fillTxDefaults(req, from, defaultsSource(ctx));
      return ctx.txs.submitUnsigned(dev.impersonatedTx(buildUnsignedTx(filled, ctx.common), from));
    });
    await ctx.txs.inclusion(hash);
    return hash;
  }
  const hash = await withKey(ctx, from, passphrase, (key) =>
    // The nonce is read and the tx pooled under the account's lock, so concurrent sends get consecutive nonces.
    ctx.keystore.exclusive(from, async () => {
      const filled = await fillTxDefaults(req, from, defaultsSource(ctx));
      const signed = signTransaction(buildUnsignedTx(filled, ctx.common), key());
      return ctx.txs.submitRaw(signed.serialize());
    }),
  );
  // Outside the account's lock: the sender's next send must not wait for this block.
  await ctx.txs.inclusion(hash);
  return hash;
}

/** geth's SignTransactionResult: the RLP/typed encoding and the transaction object. */
function signResult(tx: TypedTransaction, from: Uint8Array): Record<string, unknown> {
  const json = formatTx(tx, from, tx.hash());
  for (const k of ['blockHash', 'blockNumber', 'blockTimestamp', 'transactionIndex', 'from']) delete json[k];
  if (tx.type >= 2) delete json['gasPrice'];
  return { raw: bytesToHex(tx.serialize()), tx: json };
}

/** Signs without submitting; gas, fees and nonce must be given (eth_ and personal_signTransaction). */
export async function signFromKeyStore(
  ctx: RpcContext,
  req: CallRequest,
  passphrase?: string,
): Promise<Record<string, unknown>> {
  requireSignFields(req);
  const from = req.from!;
  return withKey(ctx, from, passphrase, async (key) => {
    const filled = await fillTxDefaults(req, from, defaultsSource(ctx));
    return signResult(signTransaction(buildUnsignedTx(filled, ctx.common), key()), from);
  });
}

/** Handler for eth_sign: EIP-191 signature by an unlocked account (v = 27/28). */
export const sign = defineMethod({
  name: 'eth_sign',
  params: [address, bytes],
  handler: (ctx: RpcContext, [addr, data]) => bytesToHex(signPersonalMessage(data, ctx.keystore.unlockedKey(addr))),
});

/** eth_signTypedData_v4's document: an object, or a string holding one. */
const typedData = codec((raw) => parseTypedData(raw));

/** Handler for eth_signTypedData_v4: EIP-712 signature by an unlocked account (65 bytes, v = 27/28). */
export const signTypedDataV4 = defineMethod({
  name: 'eth_signTypedData_v4',
  params: [address, typedData],
  handler: (ctx: RpcContext, [addr, td]) => {
    const { rs, recid } = signHash(typedDataDigest(td), ctx.keystore.unlockedKey(addr));
    const out = new Uint8Array(65);
    out.set(rs, 0);
    out[64] = 27 + recid;
    return bytesToHex(out);
  },
});

/** Handler for eth_sendTransaction: defaults filled, signed by the unlocked `from` account, submitted. */
export const sendTransaction = defineMethod({
  name: 'eth_sendTransaction',
  params: [callRequest],
  handler: async (ctx: RpcContext, [req]) => bytesToHex(await sendFromKeyStore(ctx, req)),
});

/** Handler for eth_signTransaction: {raw, tx} without submitting. */
export const signTransactionMethod = defineMethod({
  name: 'eth_signTransaction',
  params: [callRequest],
  handler: (ctx: RpcContext, [req]) => signFromKeyStore(ctx, req),
});

/** The eth_ methods that sign with the node's keys. */
export const signMethods = [sign, signTypedDataV4, sendTransaction, signTransactionMethod];
