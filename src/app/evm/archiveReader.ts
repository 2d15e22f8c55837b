// The engine's StateReader over the archive: accounts, code and storage at one state root, read synchronously
// from the trie store (classic-level's getSync behind a node cache). A state root names immutable state, so one
// reader per root is shared by every call and block built on it, and what it read once it never reads again.
import { RLP } from '@ethereumjs/rlp';
import type { AccountInfo, Address, StateReader } from '../../evm/index.ts';
import { keccak256 } from '../../evm/keccak.ts';
import { EMPTY_CODE_HASH, EMPTY_TRIE_ROOT } from '../../primitives/hash.ts';
import { bytesEqual } from '../../primitives/hex.ts';
import { type NodeReader, trieGet } from '../state/trieGet.ts';

/** Entries kept before the memo starts over (a few MB: more than a busy head's calls touch between blocks). */
const MAX_ENTRIES = 50_000;

/** ethereumjs' key prefix of code entries in the trie store. */
const CODE_PREFIX = 0x63;

/** An account as the archive holds it: the engine's view plus the storage root to read slots under. */
interface StoredAccount {
  info: AccountInfo;
  storageRoot: Uint8Array;
}

/** A 160-bit address as 20 bytes. */
function addressBytes(address: Address): Uint8Array {
  return Buffer.from(address.toString(16).padStart(40, '0'), 'hex');
}

/** A 256-bit slot number as the 32-byte trie key. */
function slotBytes(slot: bigint): Uint8Array {
  return Buffer.from(slot.toString(16).padStart(64, '0'), 'hex');
}

/** A big-endian byte string as a bigint. */
function toBigint(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt('0x' + Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex'));
}

/** Reads the state at `root` for Kestrel's engine; never written (the engine journals its writes itself). */
export class ArchiveStateReader implements StateReader {
  private accounts = new Map<Address, StoredAccount | null>();
  private slots = new Map<Address, Map<bigint, bigint>>();
  private codes = new Map<string, Uint8Array>();
  /** Code by the identity of a memoised account's hash object: the engine asks with it on every call. */
  private codeOf = new WeakMap<Uint8Array, Uint8Array>();
  private entries = 0;

  constructor(
    readonly root: Uint8Array,
    private readonly readNode: NodeReader,
    private readonly hashOf: (n: bigint) => Uint8Array | undefined,
    private readonly maxEntries = MAX_ENTRIES,
  ) {}

  /** The account at the root, or undefined when it does not exist. */
  account(address: Address): AccountInfo | undefined {
    return this.stored(address)?.info;
  }

  /** Code by hash (empty for the empty code hash). */
  code(codeHash: Uint8Array): Uint8Array {
    const known = this.codeOf.get(codeHash);
    if (known !== undefined) return known;
    if (bytesEqual(codeHash, EMPTY_CODE_HASH)) return new Uint8Array(0);
    const key = Buffer.from(codeHash.buffer, codeHash.byteOffset, codeHash.byteLength).toString('latin1');
    let code = this.codes.get(key);
    if (code === undefined) {
      const k = new Uint8Array(33);
      k[0] = CODE_PREFIX;
      k.set(codeHash, 1);
      code = this.readNode(k) ?? new Uint8Array(0);
      this.count();
      this.codes.set(key, code);
    }
    this.codeOf.set(codeHash, code);
    return code;
  }

  /** A storage slot's value at the root (0n when absent). */
  storage(address: Address, slot: bigint): bigint {
    let words = this.slots.get(address);
    const cached = words?.get(slot);
    if (cached !== undefined) return cached;
    const acc = this.stored(address);
    let value = 0n;
    if (acc !== null && !acc.info.storageEmpty) {
      const raw = trieGet(this.readNode, acc.storageRoot, slotBytes(slot), keccak256);
      if (raw !== undefined) value = toBigint(RLP.decode(raw) as Uint8Array);
    }
    this.count();
    if (words === undefined) {
      words = new Map();
      this.slots.set(address, words);
    }
    words.set(slot, value);
    return value;
  }

  /** The hash of an earlier block (zeros when unknown: the engine only asks inside the 256-block window). */
  blockHash(number: bigint): Uint8Array {
    return this.hashOf(number) ?? new Uint8Array(32);
  }

  private stored(address: Address): StoredAccount | null {
    let acc = this.accounts.get(address);
    if (acc !== undefined) return acc;
    const rlp = trieGet(this.readNode, this.root, addressBytes(address), keccak256);
    if (rlp === undefined) acc = null;
    else {
      const [nonce, balance, storageRoot, codeHash] = RLP.decode(rlp) as Uint8Array[];
      acc = {
        info: {
          nonce: toBigint(nonce!),
          balance: toBigint(balance!),
          codeHash: codeHash!,
          storageEmpty: bytesEqual(storageRoot!, EMPTY_TRIE_ROOT),
        },
        storageRoot: storageRoot!,
      };
    }
    this.count();
    this.accounts.set(address, acc);
    return acc;
  }

  private count(): void {
    if (++this.entries <= this.maxEntries) return;
    this.accounts = new Map();
    this.slots = new Map();
    this.codes = new Map();
    this.codeOf = new WeakMap();
    this.entries = 1;
  }
}
