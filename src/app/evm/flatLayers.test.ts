// Layered flat values against whole copies: whatever a layer answers is its own root's value, at every depth,
// after folds, for the parent root (abandoned blocks, previews) and for siblings cut off by a fold.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Address } from '../../evm/index.ts';
import { FlatLayer, type StoredAccount } from './flatLayers.ts';

/** The state at one root as whole maps: the reference the layers must agree with. */
interface Truth {
  accounts: Map<Address, StoredAccount | null>;
  slots: Map<Address, Map<bigint, bigint>>;
}

const ADDRESSES: Address[] = Array.from({ length: 12 }, (_, i) => BigInt(i + 1));
const SLOTS = [0n, 1n, 2n, 3n, 4n, 5n];

/** A small deterministic generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const accountOf = (balance: bigint): StoredAccount => ({
  info: { nonce: 0n, balance, codeHash: new Uint8Array(32), storageEmpty: false },
  storageRoot: new Uint8Array(32),
});

const truthAccount = (t: Truth, a: Address) => (t.accounts.has(a) ? t.accounts.get(a)! : null);
const truthSlot = (t: Truth, a: Address, s: bigint) => t.slots.get(a)?.get(s) ?? 0n;

/** Asserts every value `layer` knows is `truth`'s; returns how many it knew. */
function agree(layer: FlatLayer, truth: Truth, label: string): number {
  let known = 0;
  for (const a of ADDRESSES) {
    const acc = layer.account(a);
    if (acc !== undefined) {
      known++;
      assert.equal(acc?.info.balance, truthAccount(truth, a)?.info.balance, `${label}: account ${a}`);
    }
    for (const s of SLOTS) {
      const v = layer.slot(a, s);
      if (v === undefined) continue;
      known++;
      assert.equal(v, truthSlot(truth, a, s), `${label}: slot ${a}/${s}`);
    }
  }
  return known;
}

/** Reads some keys at `layer`'s root as a reader would: a miss takes the root's value and records it. */
function readSome(layer: FlatLayer, truth: Truth, next: () => number): void {
  for (let k = 0; k < 6; k++) {
    const a = ADDRESSES[Math.floor(next() * ADDRESSES.length)]!;
    if (layer.account(a) === undefined) layer.setAccount(a, truthAccount(truth, a));
    const s = SLOTS[Math.floor(next() * SLOTS.length)]!;
    if (layer.slot(a, s) === undefined) layer.setSlot(a, s, truthSlot(truth, a, s));
  }
}

/** A random block's changes laid over `parent` both as a new layer and on a copy of the truth. */
function block(parent: FlatLayer, truth: Truth, next: () => number): { layer: FlatLayer; truth: Truth } {
  const layer = parent.child();
  const after: Truth = {
    accounts: new Map(truth.accounts),
    slots: new Map([...truth.slots].map(([a, w]) => [a, new Map(w)])),
  };
  for (let k = 0; k < 4; k++) {
    const a = ADDRESSES[Math.floor(next() * ADDRESSES.length)]!;
    const roll = next();
    if (roll < 0.15) {
      layer.setAccount(a, null);
      layer.clearStorage(a);
      after.accounts.set(a, null);
      after.slots.delete(a);
      continue;
    }
    const acc = accountOf(BigInt(Math.floor(next() * 1000)));
    layer.setAccount(a, acc);
    after.accounts.set(a, acc);
    if (roll < 0.3) {
      layer.clearStorage(a);
      after.slots.delete(a);
    }
    const s = SLOTS[Math.floor(next() * SLOTS.length)]!;
    const v = BigInt(Math.floor(next() * 3));
    layer.setSlot(a, s, v);
    if (!after.slots.has(a)) after.slots.set(a, new Map());
    after.slots.get(a)!.set(s, v);
  }
  return { layer, truth: after };
}

describe('FlatLayer', () => {
  it('answers each root its own values over many blocks, abandoned siblings and folds included', () => {
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const next = random(seed);
      let head = { layer: new FlatLayer(), truth: { accounts: new Map(), slots: new Map() } as Truth };
      const older: Array<{ layer: FlatLayer; truth: Truth; label: string }> = [];
      for (let n = 0; n < 40; n++) {
        readSome(head.layer, head.truth, next);
        // A preview or an abandoned block over the head: its layer is dropped, the head's must not change.
        const abandoned = block(head.layer, head.truth, next);
        readSome(abandoned.layer, abandoned.truth, next);
        agree(abandoned.layer, abandoned.truth, `seed ${seed} block ${n} abandoned`);
        const parent = head;
        head = block(head.layer, head.truth, next);
        readSome(parent.layer, parent.truth, next);
        older.push({ ...parent, label: `seed ${seed} root ${n}` }, { ...abandoned, label: `seed ${seed} sib ${n}` });
        assert.ok(agree(head.layer, head.truth, `seed ${seed} head ${n}`) > 0);
        // Every root still referenced answers its own values or nothing, however many folds passed under it.
        for (const o of older) agree(o.layer, o.truth, o.label);
      }
    }
  });

  it('keeps what earlier roots read once the chain folds, and shadows deleted accounts and cleared storage', () => {
    const [a, b, c] = ADDRESSES as [Address, Address, Address];
    let layer = new FlatLayer();
    layer.setAccount(a, accountOf(1n));
    layer.setSlot(a, 1n, 7n);
    layer.setSlot(b, 2n, 9n);
    layer.setAccount(c, accountOf(3n));
    const base = layer;
    layer = layer.child();
    layer.setAccount(a, null);
    layer.clearStorage(a);
    // The parent root (an abandoned block goes back to it) keeps its values under the child's.
    assert.equal(base.account(a)?.info.balance, 1n);
    assert.equal(base.slot(a, 1n), 7n);
    assert.equal(layer.slot(b, 2n), 9n);
    layer = layer.child();
    layer.setAccount(b, accountOf(2n));
    layer.clearStorage(b);
    layer.setSlot(b, 3n, 4n);
    assert.equal(layer.account(a), null);
    assert.equal(layer.slot(a, 1n), undefined);
    assert.equal(layer.slot(b, 2n), undefined);
    assert.equal(layer.slot(b, 3n), 4n);
    for (let n = 0; n < 10; n++) layer = layer.child();
    // Folded into one base by now: the values still shadow as they did, and c's read at the first root survives.
    assert.equal(layer.account(a), null);
    assert.equal(layer.slot(a, 1n), undefined);
    assert.equal(layer.slot(b, 2n), undefined);
    assert.equal(layer.slot(b, 3n), 4n);
    assert.equal(layer.account(c)?.info.balance, 3n);
    // The first root's layer was folded away: it knows nothing rather than later roots' values.
    assert.equal(base.account(a), undefined);
    assert.equal(base.slot(b, 2n), undefined);
  });
});
