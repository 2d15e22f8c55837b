// The pre-state as the engine reads it, the post-state as pre + the engine's diff, their roots, the logs hash,
// and a readable account-by-account comparison against a fixture's expected post-state.
import { keccak256 } from '../../primitives/keccak.ts';
import { rlpEncode } from '../../primitives/rlp.ts';
import { trieRoot } from '../../primitives/trie/root.ts';
import { bareHex, bigintToFixedBytes } from '../../primitives/bytes.ts';
import { EMPTY_CODE_HASH } from '../../primitives/hash.ts';
import { encodeAccount, storageRoot, type AccountState } from '../../primitives/trie/stateRoot.ts';
import type { AccountDiff, AccountInfo, Address, Log } from '../types.ts';
import type { EnumerableReader, SeedAccount } from './engine.ts';
import type { PreAccount } from './fixture.ts';

/** A post-state account: the pre-state's, or rebuilt from a diff. */
export interface PostAccount extends AccountState {
  code: Uint8Array;
}

/** BLOCKHASH in the state tests (geth's vmTestBlockHash): keccak256 of the block number's decimal digits. */
export function testBlockHash(number: bigint): Uint8Array {
  return keccak256(new TextEncoder().encode(number.toString(10)));
}

/** A StateReader over a fixture's `pre` (never written). */
export class PreStateReader implements EnumerableReader {
  private readonly codes = new Map<string, Uint8Array>();

  constructor(private readonly pre: ReadonlyMap<Address, PreAccount>) {
    for (const acc of pre.values()) this.codes.set(bareHex(acc.codeHash), acc.code);
  }

  account(address: Address): AccountInfo | undefined {
    const acc = this.pre.get(address);
    if (acc === undefined) return undefined;
    return { nonce: acc.nonce, balance: acc.balance, codeHash: acc.codeHash, storageEmpty: acc.storage.size === 0 };
  }

  code(codeHash: Uint8Array): Uint8Array {
    const code = this.codes.get(bareHex(codeHash));
    if (code === undefined) throw new Error(`code of unknown hash 0x${bareHex(codeHash)} requested`);
    return code;
  }

  storage(address: Address, slot: bigint): bigint {
    return this.pre.get(address)?.storage.get(slot) ?? 0n;
  }

  blockHash(number: bigint): Uint8Array {
    return testBlockHash(number);
  }

  seeds(): SeedAccount[] {
    return [...this.pre].map(([address, acc]) => ({ address, storageSlots: [...acc.storage.keys()] }));
  }
}

/** The pre-state with `diff` applied (the pre-state's maps are shared, never modified). */
export function applyDiff(
  pre: ReadonlyMap<Address, PreAccount>,
  diff: readonly AccountDiff[],
): Map<Address, PostAccount> {
  const post = new Map<Address, PostAccount>(pre);
  for (const d of diff) {
    if (d.deleted) {
      post.delete(d.address);
      continue;
    }
    const before = post.get(d.address);
    const storage = new Map<bigint, bigint>(d.storageCleared || before === undefined ? [] : before.storage);
    for (const [slot, value] of d.storage) {
      if (value === 0n) storage.delete(slot);
      else storage.set(slot, value);
    }
    const code =
      d.code ??
      (before !== undefined && bareHex(before.codeHash) === bareHex(d.codeHash) ? before.code : new Uint8Array(0));
    post.set(d.address, { nonce: d.nonce, balance: d.balance, codeHash: d.codeHash, code, storage });
  }
  return post;
}

/** geth's runner touches the coinbase with a zero reward after the tx: an empty coinbase is removed (EIP-161). */
export function touchCoinbase(state: Map<Address, PostAccount>, coinbase: Address): void {
  const acc = state.get(coinbase);
  if (
    acc !== undefined &&
    acc.nonce === 0n &&
    acc.balance === 0n &&
    bareHex(acc.codeHash) === bareHex(EMPTY_CODE_HASH)
  ) {
    state.delete(coinbase);
  }
}

/** Storage roots memoised by storage map identity, so accounts a case did not change are hashed once per test. */
export class RootCache {
  private readonly roots = new WeakMap<ReadonlyMap<bigint, bigint>, Uint8Array>();

  /** The state root of an account map. */
  stateRoot(accounts: ReadonlyMap<Address, AccountState>): Uint8Array {
    const entries: Array<[Uint8Array, Uint8Array]> = [];
    for (const [address, acc] of accounts) {
      let root = this.roots.get(acc.storage);
      if (root === undefined) {
        root = storageRoot(acc.storage);
        this.roots.set(acc.storage, root);
      }
      entries.push([
        keccak256(bigintToFixedBytes(address, 20)),
        encodeAccount(acc.nonce, acc.balance, root, acc.codeHash),
      ]);
    }
    return trieRoot(entries);
  }
}

/** keccak256(rlp(logs)), each log rlp([address, [topics], data]). */
export function logsHash(logs: readonly Log[]): Uint8Array {
  return keccak256(
    rlpEncode(
      logs.map((l) => [bigintToFixedBytes(l.address, 20), l.topics.map((t) => bigintToFixedBytes(t, 32)), l.data]),
    ),
  );
}

function quantityOf(text: unknown): bigint {
  return typeof text === 'string' && text !== '0x' ? BigInt(text) : 0n;
}

/**
 * Where `actual` departs from a fixture's expected post-state (`{address: {nonce, balance, code, storage}}`),
 * as short lines, at most `limit` of them.
 */
export function describeStateDifference(
  actual: ReadonlyMap<Address, PostAccount>,
  expected: unknown,
  limit = 6,
): string[] {
  if (expected === null || typeof expected !== 'object') return [];
  const lines: string[] = [];
  const want = new Map<Address, Record<string, unknown>>();
  for (const [k, v] of Object.entries(expected as Record<string, Record<string, unknown>>)) want.set(BigInt(k), v);
  const name = (a: Address) => '0x' + a.toString(16).padStart(40, '0');
  const fmt = (v: bigint) => '0x' + v.toString(16);
  for (const [address, w] of want) {
    const got = actual.get(address);
    if (got === undefined) {
      lines.push(`${name(address)}: missing`);
      continue;
    }
    if (got.nonce !== quantityOf(w.nonce))
      lines.push(`${name(address)}: nonce ${fmt(got.nonce)}, want ${fmt(quantityOf(w.nonce))}`);
    if (got.balance !== quantityOf(w.balance)) {
      const diff = got.balance - quantityOf(w.balance);
      lines.push(
        `${name(address)}: balance ${fmt(got.balance)}, want ${fmt(quantityOf(w.balance))} (${diff > 0n ? '+' : ''}${diff})`,
      );
    }
    if ('0x' + bareHex(got.code) !== String(w.code ?? '0x').toLowerCase())
      lines.push(
        `${name(address)}: code differs (${got.code.length} bytes, want ${(String(w.code ?? '0x').length - 2) / 2})`,
      );
    const wantStorage = new Map<bigint, bigint>();
    for (const [k, v] of Object.entries((w.storage ?? {}) as Record<string, string>))
      if (quantityOf(v) !== 0n) wantStorage.set(BigInt(k), quantityOf(v));
    for (const slot of new Set([...wantStorage.keys(), ...got.storage.keys()])) {
      const g = got.storage.get(slot) ?? 0n;
      const x = wantStorage.get(slot) ?? 0n;
      if (g !== x) lines.push(`${name(address)}: storage[${fmt(slot)}] ${fmt(g)}, want ${fmt(x)}`);
    }
  }
  for (const address of actual.keys()) if (!want.has(address)) lines.push(`${name(address)}: present, want absent`);
  return lines.length > limit ? [...lines.slice(0, limit), `… ${lines.length - limit} more`] : lines;
}
