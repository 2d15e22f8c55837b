// The bank store: balances of the denoms other than the EVM denom (whose balances live in the account trie and
// nowhere else). These come from genesis and no transaction kind moves them yet, so one record per account holds
// for every height; a Merkle root over all of them is committed next to the state root in the app hash.
// When a transaction kind that moves them arrives, these records must become versioned by height.
import { rlpEncode, rlpDecode } from '../../primitives/rlp.ts';
import { sha256 } from '@noble/hashes/sha2.js';
import { trieRoot } from '../../primitives/trie/root.ts';
import { KestrelError } from '../../errors/index.ts';
import { keccak256 } from '../../primitives/hash.ts';
import { bareHex, bigintToBytes, bytesEqual, bytesToBigint, concatBytes } from '../../primitives/hex.ts';
import type { KvOp, KvStore } from '../../store/kv.ts';
import { bankAccountKey, metaKey } from '../../store/schema.ts';
import type { Genesis } from '../genesis.ts';
import type { Coin } from './proto.ts';

const ROOT_KEY = metaKey('bank/root');
const DIGEST_KEY = metaKey('bank/genesis-digest');
const SUPPLY_KEY = metaKey('bank/supply');
const utf8 = new TextEncoder();
const utf8dec = new TextDecoder();

/** Sorts coins by denom bytes, the order the SDK's store iterates in. */
export function sortCoins(coins: Coin[]): Coin[] {
  return coins.sort((a, b) => (a.denom < b.denom ? -1 : a.denom > b.denom ? 1 : 0));
}

function encodeCoins(coins: Coin[]): Uint8Array {
  return rlpEncode(coins.map((c) => [utf8.encode(c.denom), bigintToBytes(c.amount)]));
}

function decodeCoins(raw: Uint8Array): Coin[] {
  const items = rlpDecode(raw) as Uint8Array[][];
  return items.map(([d, a]) => ({ denom: utf8dec.decode(d!), amount: bytesToBigint(a!) }));
}

/** A digest of the bank part of genesis, to notice a genesis.json edited after the chain started. */
function genesisDigest(bank: Genesis['bank']): Uint8Array {
  const parts = bank.map((b) => [b.address, b.coins.map((c) => [utf8.encode(c.denom), bigintToBytes(c.amount)])]);
  return sha256(rlpEncode(parts));
}

/**
 * The Merkle root over every (address ‖ denom → amount) entry of the bank store: a plain (unhashed-key) Merkle-
 * Patricia trie. A repeated entry replaces the earlier one and a zero amount removes it, as successive puts would.
 */
export function bankRoot(bank: Genesis['bank']): Uint8Array {
  const entries = new Map<string, [Uint8Array, Uint8Array]>();
  for (const b of bank) {
    for (const c of b.coins) {
      const key = concatBytes(b.address, utf8.encode(c.denom));
      entries.set(bareHex(key), [key, bigintToBytes(c.amount)]);
    }
  }
  return trieRoot([...entries.values()], keccak256);
}

/** Non-EVM balances per account and supply per denom, persisted in LevelDB. */
export class BankStore {
  private constructor(
    private readonly kv: KvStore,
    /** Merkle root of the bank store (the same at every height, see the module header). */
    readonly root: Uint8Array,
    private readonly supplyCoins: Coin[],
  ) {}

  /** Opens the store, writing it from genesis on first start and refusing a genesis that changed since. */
  static async open(kv: KvStore, genesis: Genesis): Promise<BankStore> {
    const digest = genesisDigest(genesis.bank);
    const stored = kv.get(DIGEST_KEY);
    if (stored !== undefined) {
      if (!bytesEqual(stored, digest)) {
        throw new KestrelError('genesis.json bank balances differ from the ones this chain was started with');
      }
      const root = kv.get(ROOT_KEY);
      const supply = kv.get(SUPPLY_KEY);
      if (!root || !supply) throw new KestrelError('store corrupt: bank root or supply missing');
      return new BankStore(kv, root, decodeCoins(supply));
    }
    const totals = new Map<string, bigint>();
    const ops: KvOp[] = [];
    for (const b of genesis.bank) {
      const coins = sortCoins(b.coins.map((c) => ({ ...c })));
      for (const c of coins) totals.set(c.denom, (totals.get(c.denom) ?? 0n) + c.amount);
      ops.push({ type: 'put', key: bankAccountKey(b.address), value: encodeCoins(coins) });
    }
    const supply = sortCoins([...totals].map(([denom, amount]) => ({ denom, amount })));
    const root = bankRoot(genesis.bank);
    ops.push({ type: 'put', key: SUPPLY_KEY, value: encodeCoins(supply) });
    ops.push({ type: 'put', key: ROOT_KEY, value: root });
    ops.push({ type: 'put', key: DIGEST_KEY, value: digest }); // last in the batch: it marks the store complete
    await kv.write(ops);
    return new BankStore(kv, root, supply);
  }

  /** An account's non-EVM balances, sorted by denom (empty when it holds none). */
  balances(addr: Uint8Array): Coin[] {
    const raw = this.kv.get(bankAccountKey(addr));
    return raw === undefined ? [] : decodeCoins(raw);
  }

  /** Supply of every non-EVM denom, sorted by denom. */
  supply(): Coin[] {
    return this.supplyCoins.map((c) => ({ ...c }));
  }
}
