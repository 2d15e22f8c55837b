// State overrides for Kestrel's own engine (src/evm/): the same validated OverridePlan, applied as an overlay over the
// StateReader a call reads, so the engine runs on the overridden pre-state without any write to it. (The ethereumjs
// path writes the plan into the call's checkpoint instead: writeAccountOverrides in overrides.ts.)
import type { AccountInfo, Address, StateReader } from '../../evm/types.ts';
import { bytesToBigint, bytesToHex } from '../../primitives/hex.ts';
import type { AccountOverride } from '../../primitives/overrides.ts';
import { EMPTY_CODE_HASH } from '../../primitives/hash.ts';

interface Overlay {
  nonce?: bigint;
  balance?: bigint;
  code?: { hash: Uint8Array; bytes: Uint8Array };
  /** The storage is replaced: slots not in `slots` read as zero. */
  replaced: boolean;
  slots: Map<bigint, bigint>;
}

/** A StateReader that answers overridden accounts, code and slots from the plan and everything else from `base`. */
export function overlayReader(
  base: StateReader,
  accounts: AccountOverride[],
  keccak256: (b: Uint8Array) => Uint8Array,
): StateReader {
  const byAddress = new Map<Address, Overlay>();
  const codeByHash = new Map<string, Uint8Array>();
  for (const o of accounts) {
    const addr = bytesToBigint(o.address);
    const entry: Overlay = byAddress.get(addr) ?? { replaced: false, slots: new Map() };
    if (o.nonce !== undefined) entry.nonce = o.nonce;
    if (o.balance !== undefined) entry.balance = o.balance;
    if (o.code !== undefined) {
      entry.code = { hash: keccak256(o.code), bytes: o.code };
      codeByHash.set(bytesToHex(entry.code.hash), o.code);
    }
    if (o.state !== undefined) {
      entry.replaced = true;
      entry.slots = new Map();
    }
    for (const [slot, value] of o.state ?? o.stateDiff ?? [])
      entry.slots.set(bytesToBigint(slot), bytesToBigint(value));
    byAddress.set(addr, entry);
  }
  return {
    account(address: Address): AccountInfo | undefined {
      const o = byAddress.get(address);
      const acc = base.account(address);
      if (!o) return acc;
      const written = [...o.slots.values()].some((v) => v !== 0n);
      return {
        nonce: o.nonce ?? acc?.nonce ?? 0n,
        balance: o.balance ?? acc?.balance ?? 0n,
        codeHash: o.code?.hash ?? acc?.codeHash ?? EMPTY_CODE_HASH,
        storageEmpty: o.replaced ? !written : (acc?.storageEmpty ?? true) && !written,
      };
    },
    code(codeHash: Uint8Array): Uint8Array {
      return codeByHash.get(bytesToHex(codeHash)) ?? base.code(codeHash);
    },
    storage(address: Address, slot: bigint): bigint {
      const o = byAddress.get(address);
      if (!o) return base.storage(address, slot);
      const v = o.slots.get(slot);
      if (v !== undefined) return v;
      return o.replaced ? 0n : base.storage(address, slot);
    },
    blockHash: (n) => base.blockHash(n),
  };
}
