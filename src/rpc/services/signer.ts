// Node-side signing: eth_sign, eth_signTypedData_v4, eth_/personal_sendTransaction and eth_/personal_signTransaction
// sign with the key store's keys. An account is used unlocked (personal_unlockAccount, or --dev) or with a
// passphrase for one call. Signed transactions enter through the submit path, exactly as eth_sendRawTransaction.
import type { Common } from '@ethereumjs/common';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { DevToolkit } from '../../consensus/solo/devToolkit.ts';
import type { KeyStore } from '../../keystore/keystore.ts';
import { signHash, signPersonalMessage, signTransaction } from '../../keystore/signer.ts';
import {
  buildUnsignedTx,
  fillTxDefaults,
  requireSignFields,
  type FeeSuggestion,
  type TxDefaultsSource,
} from '../../keystore/txDefaults.ts';
import { typedDataDigest, type TypedData } from '../../keystore/typedData.ts';
import type { TxSubmitter } from '../../mempool/submit.ts';
import type { CallRequest } from '../../primitives/callRequest.ts';

const ZERO_ADDRESS = new Uint8Array(20);

/** What the signer is built from. */
export interface SignerDeps {
  chainId: bigint;
  /** The shared Common transactions are built with. */
  common: Common;
  keystore: KeyStore;
  txs: TxSubmitter;
  /** Fee defaults for transactions that name none. */
  fees(): FeeSuggestion;
  /** The dev toolkit: an impersonated sender's transactions go in unsigned (anvil_impersonateAccount). */
  dev?: DevToolkit;
}

/** Signs with the node's keys and submits. */
export class NodeSigner {
  constructor(private readonly d: SignerDeps) {}

  /** Where transaction defaults come from on this node (eth_fillTransaction reads them too). */
  defaults(): TxDefaultsSource {
    return { chainId: this.d.chainId, pendingNonce: (a) => this.d.txs.pendingNonce(a), fees: () => this.d.fees() };
  }

  /** Fills defaults, signs with the account's key and submits; returns the tx hash once the send may answer. */
  async send(req: CallRequest, passphrase?: string): Promise<Uint8Array> {
    const { keystore, txs, dev, common } = this.d;
    const from = req.from ?? ZERO_ADDRESS;
    if (passphrase === undefined && dev?.isImpersonated(from) && !keystore.isUnlocked(from)) {
      const hash = await keystore.exclusive(from, async () => {
        const filled = await fillTxDefaults(req, from, this.defaults());
        return txs.submitUnsigned(dev.impersonatedTx(buildUnsignedTx(filled, common), from));
      });
      await txs.inclusion(hash);
      return hash;
    }
    const hash = await this.withKey(from, passphrase, (key) =>
      // The nonce is read and the tx pooled under the account's lock, so concurrent sends get consecutive nonces.
      keystore.exclusive(from, async () => {
        const filled = await fillTxDefaults(req, from, this.defaults());
        const signed = signTransaction(buildUnsignedTx(filled, common), key());
        return txs.submitRaw(signed.serialize());
      }),
    );
    // Outside the account's lock: the sender's next send must not wait for this block.
    await txs.inclusion(hash);
    return hash;
  }

  /** Signs without submitting; gas, fees and nonce must be given. */
  async signTx(req: CallRequest, passphrase?: string): Promise<{ tx: TypedTransaction; from: Uint8Array }> {
    requireSignFields(req);
    const from = req.from!;
    return this.withKey(from, passphrase, async (key) => {
      const filled = await fillTxDefaults(req, from, this.defaults());
      return { tx: signTransaction(buildUnsignedTx(filled, this.d.common), key()), from };
    });
  }

  /** EIP-191 signature (v = 27/28) by an unlocked account. */
  signMessage(address: Uint8Array, data: Uint8Array): Uint8Array {
    return signPersonalMessage(data, this.d.keystore.unlockedKey(address));
  }

  /** EIP-191 signature with the key decrypted by `passphrase` for this call only. */
  async signMessageWith(address: Uint8Array, data: Uint8Array, passphrase: string): Promise<Uint8Array> {
    const key = await this.d.keystore.decrypt(address, passphrase);
    try {
      return signPersonalMessage(data, key);
    } finally {
      key.fill(0);
    }
  }

  /** EIP-712 signature by an unlocked account: r ‖ s ‖ v, v = 27/28. */
  signTypedData(address: Uint8Array, td: TypedData): Uint8Array {
    const { rs, recid } = signHash(typedDataDigest(td), this.d.keystore.unlockedKey(address));
    const out = new Uint8Array(65);
    out.set(rs, 0);
    out[64] = 27 + recid;
    return out;
  }

  /** Decrypts with the passphrase for this one call, or takes the unlocked key; runs `fn`, wiping a one-shot key. */
  private async withKey<T>(
    from: Uint8Array,
    passphrase: string | undefined,
    fn: (key: () => Uint8Array) => Promise<T>,
  ): Promise<T> {
    const { keystore } = this.d;
    if (passphrase === undefined) {
      keystore.unlockedKey(from); // fail fast when locked, before touching the nonce
      // Fetched again at signing time: the account may have been locked meanwhile.
      return fn(() => keystore.unlockedKey(from));
    }
    const key = await keystore.decrypt(from, passphrase);
    try {
      return await fn(() => key);
    } finally {
      key.fill(0);
    }
  }
}
