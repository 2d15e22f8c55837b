// Genesis allocations and dev-toolkit edits written as a state diff (editsDiff + the blocks' state writer) give the
// roots ethereumjs' MerkleStateManager gave for the same edits, made the way Kestrel made them on it before.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Address, createAccount } from '@ethereumjs/util';
import { initKeccak } from '../primitives/keccak.ts';
import { EMPTY_TRIE_ROOT } from '../primitives/hash.ts';
import { bytesToHex, hexToBytes } from '../primitives/hex.ts';
import {
  fixtureAddress,
  fixtureSlot,
  openArchiveFixture,
  type ArchiveFixture,
} from '../../test/helpers/archiveState.ts';
import { ArchiveStateReader } from './evm/archiveReader.ts';
import { writeState } from './evm/stateWrite.ts';
import { editsDiff, type StateEdit } from './stateEdits.ts';
import { executionState } from '../../test/helpers/ethereumjsState.ts';

const word = (hex: string) => hexToBytes('0x' + hex.padStart(64, '0'));

/** An edit applied as the dev toolkit applied it on ethereumjs (anvil_setBalance, …). */
async function ethjsEdit(sm: MerkleStateManager, e: StateEdit): Promise<void> {
  const a = new Address(e.address);
  if (e.balance !== undefined) await sm.modifyAccountFields(a, { balance: e.balance });
  if (e.nonce !== undefined) await sm.modifyAccountFields(a, { nonce: e.nonce });
  if (e.code !== undefined) {
    if (!(await sm.getAccount(a))) await sm.modifyAccountFields(a, { nonce: 0n });
    await sm.putCode(a, e.code);
  }
  for (const [slot, value] of e.storage ?? []) {
    if (!(await sm.getAccount(a))) await sm.modifyAccountFields(a, { nonce: 0n });
    await sm.putStorage(a, slot, value);
  }
}

describe('state edits as a diff, against ethereumjs', () => {
  let fx: ArchiveFixture;
  before(async () => {
    await initKeccak();
    fx = await openArchiveFixture();
  });
  after(() => fx.close());

  it('dev-toolkit edits, one block each, reach the same state roots', async () => {
    const absent = (i: number) => fixtureAddress(50 + i).bytes;
    const edits: StateEdit[] = [
      { address: fixtureAddress(3).bytes, balance: 7n },
      { address: absent(0), balance: 0n },
      { address: absent(1), nonce: 9n },
      { address: absent(2), code: hexToBytes('0x6000') },
      { address: fixtureAddress(5).bytes, code: hexToBytes('0x60016002') },
      { address: fixtureAddress(10).bytes, code: new Uint8Array(0) },
      { address: absent(3), storage: [[fixtureSlot(1), word('2a')]] },
      { address: fixtureAddress(15).bytes, storage: [[fixtureSlot(3), word('ff'.repeat(32))]] },
      { address: fixtureAddress(15).bytes, storage: [[fixtureSlot(4), word('')]] },
      { address: fixtureAddress(1).bytes, storage: [[fixtureSlot(0), word('01')]] },
      { address: absent(3), storage: [[fixtureSlot(1), word('')]] },
      { address: fixtureAddress(5).bytes, balance: 1n, nonce: 2n },
      { address: absent(4), storage: [[fixtureSlot(9), word('')]] },
    ];
    const buf = fx.db.bufferedDb();
    const readNode = (k: Uint8Array) => buf.getSync(k);
    let root = fx.root;
    let ethjsRoot = fx.root;
    for (const e of edits) {
      const reader = new ArchiveStateReader(root, readNode, () => undefined);
      root = writeState(root, editsDiff(reader, [e]), readNode, (k, v) => buf.putSync(k, v), { loaded: reader });
      const sm = executionState(fx.db, ethjsRoot, buf);
      await sm.checkpoint();
      await ethjsEdit(sm, e);
      await sm.commit();
      ethjsRoot = await sm.getStateRoot();
      assert.equal(
        bytesToHex(root),
        bytesToHex(ethjsRoot),
        JSON.stringify(e, (_, v) => (typeof v === 'bigint' ? `${v}` : v)),
      );
    }
    const reader = new ArchiveStateReader(root, readNode, () => undefined);
    assert.equal(
      bytesToHex(reader.code(reader.account(BigInt(bytesToHex(absent(2))))!.codeHash)),
      '0x6000',
      'edited code is stored',
    );
  });

  it('several edits of one block apply in order', async () => {
    const buf = fx.db.bufferedDb();
    const readNode = (k: Uint8Array) => buf.getSync(k);
    const a = fixtureAddress(20).bytes;
    const edits: StateEdit[] = [
      { address: a, balance: 5n, storage: [[fixtureSlot(0), word('01')]] },
      { address: a, nonce: 3n, storage: [[fixtureSlot(0), word('02')]] },
    ];
    const reader = new ArchiveStateReader(fx.root, readNode, () => undefined);
    const root = writeState(fx.root, editsDiff(reader, edits), readNode, (k, v) => buf.putSync(k, v));
    const sm = executionState(fx.db, fx.root, buf);
    for (const e of edits) await ethjsEdit(sm, e);
    await sm.flush();
    assert.equal(bytesToHex(root), bytesToHex(await sm.getStateRoot()));
  });

  it('a genesis allocation gives the root of ethereumjs putAccount calls (repeats: the last wins)', async () => {
    const alloc = [
      { address: hexToBytes('0x' + '11'.repeat(20)), balance: 10n ** 22n },
      { address: hexToBytes('0x' + '22'.repeat(20)), balance: 0n },
      { address: hexToBytes('0x' + '33'.repeat(20)), balance: 1n },
      { address: hexToBytes('0x' + '11'.repeat(20)), balance: 5n },
    ];
    const buf = fx.db.bufferedDb();
    const readNode = (k: Uint8Array) => buf.getSync(k);
    const empty = new ArchiveStateReader(EMPTY_TRIE_ROOT, readNode, () => undefined);
    const root = writeState(EMPTY_TRIE_ROOT, editsDiff(empty, alloc), readNode, (k, v) => buf.putSync(k, v));
    const sm = executionState(fx.db, new Uint8Array(0), fx.db.bufferedDb());
    for (const a of alloc)
      await sm.putAccount(new Address(a.address), createAccount({ nonce: 0n, balance: a.balance }));
    await sm.flush();
    assert.equal(bytesToHex(root), bytesToHex(await sm.getStateRoot()));
    assert.equal(
      bytesToHex(writeState(EMPTY_TRIE_ROOT, editsDiff(empty, []), readNode, () => {})),
      bytesToHex(EMPTY_TRIE_ROOT),
    );
  });
});
