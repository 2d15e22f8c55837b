// Reads at `latest` after a block, with the head-state cache fed the block's changes at commit (as src/main.ts
// wires it), against a fresh ChainQuery that reads the trie: changed, deleted, re-created and untouched accounts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { Address, createContractAddress } from '@ethereumjs/util';
import { deriveAccounts, DEV_MNEMONIC } from '../keys/devAccounts.ts';
import { bytesToHex, concatBytes, hexToBytes } from '../primitives/hex.ts';
import { openTestApp, TEST_COMMON, type TestApp } from '../../test/helpers/app.ts';
import type { ExecTx } from './evm/executor.ts';
import { ChainQuery } from './query.ts';
import { execTxOf } from './evm/execTx.testing.ts';

const dev = deriveAccounts(DEV_MNEMONIC, 5);
const GWEI = 1_000_000_000n;
const SLOT0 = new Uint8Array(32);
const nonces = new Map<number, bigint>();

function tx(from: number, to: Uint8Array | undefined, value: bigint, data: Uint8Array = new Uint8Array(0)): ExecTx {
  const nonce = nonces.get(from) ?? 0n;
  nonces.set(from, nonce + 1n);
  const t = createFeeMarket1559Tx(
    { nonce, to, value, data, gasLimit: 200_000n, maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI },
    { common: TEST_COMMON },
  ).sign(dev[from]!.privateKey);
  return execTxOf(t, dev[from]!.address);
}

describe('head-state cache fed at commit', () => {
  let dir: string;
  let node: TestApp;
  let q: ChainQuery;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kestrel-headstate-'));
    node = await openTestApp(join(dir, 'db'));
    q = new ChainQuery(node.app, node.chain, node.state);
    node.app.onCommit((c) => {
      if (c.stateChanges) q.applyHeadChanges(c.block, c.stateChanges);
    });
  });
  after(async () => {
    await node.kv.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function produce(txs: ExecTx[]): Promise<void> {
    const res = await node.app.finalizeBlock({ txs, time: node.app.head.header.timestamp + 2n });
    assert.deepEqual(
      res.receipts.map((r) => r.status),
      txs.map(() => 1),
    );
    const c = await node.app.commit();
    assert.ok(c.stateChanges && c.stateChanges.length > 0);
  }

  /** Whether `read` is answered without opening a state view (from the head cache alone). */
  function fromMemory(read: () => unknown): boolean {
    const readView = node.state.readView.bind(node.state);
    let opened = 0;
    node.state.readView = (root) => (opened++, readView(root));
    try {
      read();
    } finally {
      node.state.readView = readView;
    }
    return opened === 0;
  }

  /** What the trie says at the head (a new ChainQuery has nothing cached). */
  async function trieAnswer(addr: Uint8Array) {
    const fresh = new ChainQuery(node.app, node.chain, node.state);
    const head = node.app.head;
    const a = await fresh.account(addr, head);
    return {
      ...a,
      codeHash: bytesToHex(a.codeHash),
      storageRoot: bytesToHex(a.storageRoot),
      slot0: bytesToHex(await fresh.storage(addr, SLOT0, head)),
    };
  }

  async function cachedAnswer(addr: Uint8Array) {
    const head = node.app.head;
    const a = await q.account(addr, head);
    return {
      ...a,
      codeHash: bytesToHex(a.codeHash),
      storageRoot: bytesToHex(a.storageRoot),
      slot0: bytesToHex(await q.storage(addr, SLOT0, head)),
    };
  }

  test('reads at latest equal the trie after each block, from memory for the accounts the block changed', async () => {
    const fresh = hexToBytes('0x' + 'be'.repeat(20));
    const recreated = createContractAddress(new Address(dev[2]!.address), 0n).bytes;
    const destroyed = createContractAddress(new Address(dev[2]!.address), 1n).bytes;
    const coinbase = new Uint8Array(20).fill(0xee);
    const all = [...dev.map((d) => d.address), fresh, recreated, destroyed, coinbase];

    // Block 1 funds the two future contract addresses: they exist (balance only) before their creation.
    await produce([tx(0, fresh, 10n ** 18n), tx(1, recreated, 1000n), tx(1, destroyed, 1000n)]);
    for (const a of all) assert.deepEqual(await cachedAnswer(a), await trieAnswer(a), bytesToHex(a));

    // Every address is cached now (read above at this head). Block 2 changes some of them:
    // - `recreated` gets code-less contract storage (initcode: SSTORE(0, 1)); its cached slot 0 (zero) is stale;
    // - `destroyed` is created by initcode that self-destructs (EIP-6780: deleted), its balance sent to dev 3;
    // - dev 0 and `fresh` change balances, dev 2 its nonce, the coinbase its fees; dev 4 is untouched.
    const selfDestruct = concatBytes(Uint8Array.of(0x73), dev[3]!.address, Uint8Array.of(0xff));
    await produce([
      tx(2, undefined, 0n, hexToBytes('0x600160005500')),
      tx(2, undefined, 0n, selfDestruct),
      tx(0, fresh, 5n),
    ]);
    const head = node.app.head;
    for (const a of all) assert.deepEqual(await cachedAnswer(a), await trieAnswer(a), bytesToHex(a));
    const slot = await q.storage(recreated, SLOT0, head);
    assert.equal(slot[31], 1);
    assert.equal((await q.account(destroyed, head)).balance, 0n);
    assert.equal(node.state.readView(head.header.stateRoot).account(destroyed), undefined);

    // Block 3 touches none of them: everything changed or untouched in block 2 is answered from memory.
    await produce([tx(1, hexToBytes('0x' + '77'.repeat(20)), 1n)]);
    const b3 = node.app.head;
    for (const a of [dev[0]!.address, dev[2]!.address, dev[4]!.address, fresh, recreated, coinbase]) {
      assert.ok(
        fromMemory(() => q.account(a, b3)),
        `${bytesToHex(a)} from memory`,
      );
    }
    assert.ok(fromMemory(() => q.storage(recreated, SLOT0, b3)));
    for (const a of all) assert.deepEqual(await cachedAnswer(a), await trieAnswer(a), bytesToHex(a));
  });

  test('a block with dev-toolkit edits reports them: the cache follows the edits, no trie walk', async () => {
    const target = dev[4]!.address;
    const created = hexToBytes('0x' + '5e'.repeat(20));
    const slot = SLOT0.slice();
    slot[31] = 7;
    await q.account(target, node.app.head);
    await q.storage(created, slot, node.app.head); // cached as zero before the edit
    await node.app.finalizeBlock({
      txs: [],
      time: node.app.head.header.timestamp + 2n,
      edits: [
        { address: target, balance: 12345n },
        {
          address: created,
          code: hexToBytes('0x6001600055'),
          storage: [[slot, hexToBytes('0x' + '00'.repeat(31) + '2a')]],
        },
      ],
    });
    const c = await node.app.commit();
    assert.ok(c.stateChanges && c.stateChanges.length >= 2);
    const head = node.app.head;
    for (const a of [target, created]) {
      assert.ok(
        fromMemory(() => q.account(a, head)),
        `${bytesToHex(a)} from memory`,
      );
      assert.deepEqual(await cachedAnswer(a), await trieAnswer(a), bytesToHex(a));
    }
    assert.equal((await q.account(target, head)).balance, 12345n);
    assert.equal(
      bytesToHex(q.storage(created, slot, head)),
      bytesToHex(new ChainQuery(node.app, node.chain, node.state).storage(created, slot, head)),
    );
    assert.ok(fromMemory(() => q.storage(created, slot, head)));
    assert.equal(q.storage(created, slot, head)[31], 0x2a);
    assert.equal(bytesToHex(q.code(created, head)), '0x6001600055');
  });
});
