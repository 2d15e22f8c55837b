// ecrecover on @noble/curves: the pure-JS fallback when the native add-on cannot load (imported only then).
import { secp256k1 as nobleSecp } from '@noble/curves/secp256k1.js';
import type { RecoverFn } from './ecrecover.ts';

/** The pure-JS recoverer (@noble/curves). */
export const nobleRecover: RecoverFn = (hash, r, s, recid) => {
  try {
    const compact = new Uint8Array(64);
    compact.set(r, 0);
    compact.set(s, 32);
    const sig = nobleSecp.Signature.fromBytes(compact, 'compact').addRecoveryBit(recid);
    return sig.recoverPublicKey(hash).toBytes(false);
  } catch {
    return undefined;
  }
};
