// The personal_ namespace (private: the registry refuses it without the bearer token). Accounts live in the node's
// key store; results and error texts follow geth's (internal/ethapi PersonalAccountAPI, accounts/keystore).
// Every handler is a thin adapter over ctx.keystore and the node signer (rpc/services/signer.ts).
import { KeyStoreError } from '../../../errors/index.ts';
import { recoverPersonalMessage } from '../../../keystore/signer.ts';
import { bytesToHex } from '../../../primitives/hex.ts';
import type { Needs } from '../../context.ts';
import { defineMethod, type RpcMethod } from '../../method.ts';
import { address, bool, bytes, callRequest, optional, string } from '../../params/index.ts';
import { signResult } from '../eth/sign.ts';
import { checkWalletUrl, DEFAULT_UNLOCK_SECONDS, parseRawKey, unlockDurationMs, unlockSeconds } from './params.ts';

/** What these methods use. */
type Ctx = Needs<'keystore' | 'signer' | 'isDevAccount'>;

/** Handler for personal_listAccounts. */
export const listAccounts = defineMethod({
  name: 'personal_listAccounts',
  params: [],
  handler: (ctx: Ctx) => ctx.keystore.accounts().map((a) => bytesToHex(a)),
});

/** Handler for personal_newAccount: a random key, stored encrypted; the account starts locked. */
export const newAccount = defineMethod({
  name: 'personal_newAccount',
  params: [string],
  handler: async (ctx: Ctx, [passphrase]) => bytesToHex(await ctx.keystore.newAccount(passphrase)),
});

/** Handler for personal_importRawKey (hex with or without 0x; a duplicate is "account already exists"). */
export const importRawKey = defineMethod({
  name: 'personal_importRawKey',
  params: [string, string],
  handler: async (ctx: Ctx, [hexKey, passphrase]) => {
    const key = parseRawKey(hexKey);
    try {
      return bytesToHex(await ctx.keystore.importKey(key, passphrase));
    } finally {
      key.fill(0);
    }
  },
});

/** Handler for personal_unlockAccount: duration in seconds, default 300, 0 = until the node exits. */
export const unlockAccount = defineMethod({
  name: 'personal_unlockAccount',
  params: [address, string, optional(unlockSeconds, () => DEFAULT_UNLOCK_SECONDS)],
  handler: async (ctx: Ctx, [addr, passphrase, seconds]) => {
    await ctx.keystore.unlock(addr, passphrase, unlockDurationMs(seconds));
    return true;
  },
});

/** Handler for personal_lockAccount: forgets the key at once (true, as geth, even when it was not unlocked). */
export const lockAccount = defineMethod({
  name: 'personal_lockAccount',
  params: [address],
  handler: (ctx: Ctx, [addr]) => {
    ctx.keystore.lock(addr);
    return true;
  },
});

/** Handler for personal_sendTransaction: decrypts for this transaction only; the account stays locked. */
export const sendTransaction = defineMethod({
  name: 'personal_sendTransaction',
  params: [callRequest, string],
  handler: async (ctx: Ctx, [req, passphrase]) => bytesToHex(await ctx.signer.send(req, passphrase)),
});

/** Handler for personal_signTransaction: like eth_signTransaction, with the passphrase. */
export const signTransaction = defineMethod({
  name: 'personal_signTransaction',
  params: [callRequest, string],
  handler: async (ctx: Ctx, [req, passphrase]) => signResult(await ctx.signer.signTx(req, passphrase)),
});

/**
 * Handler for personal_sign: EIP-191, v = 27/28. geth requires the passphrase; Kestrel also accepts the call
 * without it for an unlocked account, which is what ethers' JsonRpcSigner.signMessage sends.
 */
export const sign = defineMethod({
  name: 'personal_sign',
  params: [bytes, address, optional(string)],
  // Under --dev ethers' JsonRpcSigner.signMessage works for the dev accounts (as on Anvil and Hardhat) without the token.
  openTo: (ctx: Ctx, [, addr]) => ctx.isDevAccount(addr),
  handler: async (ctx: Ctx, [data, addr, passphrase]) => {
    if (passphrase === undefined) return bytesToHex(ctx.signer.signMessage(addr, data));
    return bytesToHex(await ctx.signer.signMessageWith(addr, data, passphrase));
  },
});

/** Handler for personal_ecRecover: the address that made a personal_sign signature. */
export const ecRecover = defineMethod({
  name: 'personal_ecRecover',
  params: [bytes, bytes],
  handler: (_ctx: Ctx, [data, sig]) => bytesToHex(recoverPersonalMessage(data, sig)),
});

/** Handler for personal_listWallets: one keystore:// wallet per key file, as geth lists them. */
export const listWallets = defineMethod({
  name: 'personal_listWallets',
  params: [],
  handler: (ctx: Ctx) =>
    ctx.keystore.wallets().map((w) => ({
      url: w.url,
      status: w.unlocked ? 'Unlocked' : 'Locked',
      accounts: [{ address: bytesToHex(w.address), url: w.url }],
    })),
});

/** The key-store wallet at `url`, or geth's errors for a malformed or unknown URL. */
function requireWallet(ctx: Ctx, url: string): void {
  checkWalletUrl(url);
  if (!ctx.keystore.wallets().some((w) => w.url === url)) throw new KeyStoreError('unknown wallet');
}

/** Handler for personal_openWallet: key-store wallets need no opening (null, as geth). */
export const openWallet = defineMethod({
  name: 'personal_openWallet',
  params: [string, optional(string)],
  handler: (ctx: Ctx, [url]) => {
    requireWallet(ctx, url);
    return null;
  },
});

/** Handler for personal_deriveAccount: key-store wallets hold one key and cannot derive (geth: "not supported"). */
export const deriveAccount = defineMethod({
  name: 'personal_deriveAccount',
  params: [string, string, optional(bool)],
  handler: (ctx: Ctx, [url]) => {
    requireWallet(ctx, url);
    throw new KeyStoreError('not supported');
  },
});

/** Handler for personal_initializeWallet: only smartcard wallets can be initialised; key-store files cannot. */
export const initializeWallet = defineMethod({
  name: 'personal_initializeWallet',
  params: [string],
  handler: (ctx: Ctx, [url]) => {
    requireWallet(ctx, url);
    throw new KeyStoreError('specified wallet does not support initialization');
  },
});

/** Handler for personal_unpair: only smartcard wallets are paired; key-store files are not. */
export const unpair = defineMethod({
  name: 'personal_unpair',
  params: [string, string],
  handler: (ctx: Ctx, [url]) => {
    requireWallet(ctx, url);
    throw new KeyStoreError('specified wallet does not support pairing');
  },
});

/** All personal_ methods. */
export const personalNamespace: RpcMethod<Ctx>[] = [
  listAccounts,
  newAccount,
  importRawKey,
  unlockAccount,
  lockAccount,
  sendTransaction,
  signTransaction,
  sign,
  ecRecover,
  listWallets,
  openWallet,
  deriveAccount,
  initializeWallet,
  unpair,
];
