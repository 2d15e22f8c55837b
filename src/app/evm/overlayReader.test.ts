import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StateReader } from '../../evm/types.ts';
import { keccak256 } from '../../primitives/hash.ts';
import { overlayReader } from './overlayReader.ts';

const A = 0xaan;
const addr = (n: bigint) => Uint8Array.from(Buffer.from(n.toString(16).padStart(40, '0'), 'hex'));
const word = (n: bigint) => Uint8Array.from(Buffer.from(n.toString(16).padStart(64, '0'), 'hex'));
const BASE_CODE = Uint8Array.of(0x60, 0x00);
const base: StateReader = {
  account: (a) =>
    a === A ? { nonce: 3n, balance: 100n, codeHash: keccak256(BASE_CODE), storageEmpty: false } : undefined,
  code: (h) => (Buffer.from(h).equals(Buffer.from(keccak256(BASE_CODE))) ? BASE_CODE : new Uint8Array(0)),
  storage: (a, s) => (a === A ? s * 10n : 0n),
  blockHash: () => new Uint8Array(32),
};

describe('override overlay for the engine StateReader', () => {
  it('stateDiff keeps other slots, state replaces them; balance, nonce and code override', () => {
    const diff = overlayReader(
      base,
      [{ address: addr(A), balance: 7n, stateDiff: [[word(1n), word(99n)]] }],
      keccak256,
    );
    assert.deepEqual(diff.account(A), { nonce: 3n, balance: 7n, codeHash: keccak256(BASE_CODE), storageEmpty: false });
    assert.equal(diff.storage(A, 1n), 99n);
    assert.equal(diff.storage(A, 2n), 20n);
    const code = Uint8Array.of(0x5f, 0x5f, 0xf3);
    const state = overlayReader(
      base,
      [{ address: addr(A), nonce: 9n, code, state: [[word(1n), word(5n)]] }],
      keccak256,
    );
    assert.equal(state.storage(A, 1n), 5n);
    assert.equal(state.storage(A, 2n), 0n);
    assert.equal(state.account(A)!.nonce, 9n);
    assert.deepEqual(state.code(state.account(A)!.codeHash), code);
    assert.deepEqual(state.code(keccak256(BASE_CODE)), BASE_CODE);
  });

  it('creates an account that did not exist', () => {
    const r = overlayReader(base, [{ address: addr(0xbbn), balance: 1n }], keccak256);
    assert.equal(base.account(0xbbn), undefined);
    assert.equal(r.account(0xbbn)!.balance, 1n);
    assert.equal(r.account(0xbbn)!.storageEmpty, true);
  });
});
