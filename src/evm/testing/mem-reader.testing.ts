// An in-memory StateReader for the engine's unit tests and benches.
import type { AccountInfo, Address, StateReader } from '../types.ts';
import { EMPTY_CODE_HASH as KECCAK_EMPTY } from '../../primitives/hash.ts';
import { bytesToHex } from '../../primitives/hex.ts';
import { keccak256 } from '../../primitives/keccak.ts';

/** A pre-state account as tests write it. */
export interface TestAccount {
  nonce?: bigint;
  balance?: bigint;
  code?: Uint8Array;
  storage?: Map<bigint, bigint>;
}

/** A StateReader over plain maps (requires initEngine() for code hashes). */
export class MemReader implements StateReader {
  private readonly accounts = new Map<Address, AccountInfo>();
  private readonly codes = new Map<string, Uint8Array>();
  private readonly slots = new Map<Address, Map<bigint, bigint>>();

  /** Adds an account. */
  set(address: Address, a: TestAccount): this {
    const code = a.code ?? new Uint8Array(0);
    const codeHash = code.length === 0 ? KECCAK_EMPTY : keccak256(code);
    this.codes.set(bytesToHex(codeHash), code);
    const storage = a.storage ?? new Map<bigint, bigint>();
    this.slots.set(address, storage);
    this.accounts.set(address, {
      nonce: a.nonce ?? 0n,
      balance: a.balance ?? 0n,
      codeHash,
      storageEmpty: storage.size === 0,
    });
    return this;
  }

  account(address: Address): AccountInfo | undefined {
    return this.accounts.get(address);
  }
  code(codeHash: Uint8Array): Uint8Array {
    return this.codes.get(bytesToHex(codeHash)) ?? new Uint8Array(0);
  }
  storage(address: Address, slot: bigint): bigint {
    return this.slots.get(address)?.get(slot) ?? 0n;
  }
  blockHash(number: bigint): Uint8Array {
    return keccak256(new TextEncoder().encode(number.toString()));
  }
}
