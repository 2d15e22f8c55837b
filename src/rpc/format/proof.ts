// The EIP-1186 proof object of eth_getProof.
import type { AccountProofRecord } from '../../app/state/proof.ts';
import { bytesToBigint, bytesToHex, toQuantity } from '../../primitives/hex.ts';

/** Formats a proof; `fullKeys[i]` says whether storage key i is echoed as a 32-byte hash or a QUANTITY (geth). */
export function formatProof(p: AccountProofRecord, fullKeys: boolean[]): Record<string, unknown> {
  return {
    address: bytesToHex(p.address),
    accountProof: p.accountProof.map((n) => bytesToHex(n)),
    balance: toQuantity(p.balance),
    codeHash: bytesToHex(p.codeHash),
    nonce: toQuantity(p.nonce),
    storageHash: bytesToHex(p.storageHash),
    storageProof: p.storageProof.map((s, i) => ({
      key: fullKeys[i] ? bytesToHex(s.slot) : toQuantity(bytesToBigint(s.slot)),
      value: toQuantity(s.value),
      proof: s.proof.map((n) => bytesToHex(n)),
    })),
  };
}
