// End to end over the real store: KvStore (LevelDB) → ChainStore/StateDb → KestrelApp, blocks of real signed txs,
// then a close/reopen that must give back the same chain and archive state.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { genTransactionsTrieRoot } from '@ethereumjs/block';
import { createFeeMarket1559Tx, createLegacyTx, createTxFromRLP } from '@ethereumjs/tx';
import { Address, createAccountFromRLP, createContractAddress } from '@ethereumjs/util';
import { KestrelError, NotFoundError, TxRejectedError } from '../errors/index.ts';
import { deriveAccounts, DEV_MNEMONIC, type DevAccount } from '../keys/devAccounts.ts';
import { bytesToHex, hexToBytes } from '../primitives/hex.ts';
import { EMPTY_CODE_HASH, EMPTY_TRIE_ROOT } from '../primitives/hash.ts';
import { ChainQuery } from './query.ts';
import { receiptsRoot } from './block.ts';
import type { BlockRecord, ReceiptRecord } from '../store/records.ts';
import type { ExecTx } from './evm/executor.ts';
import { DEV_BALANCE } from './genesis.ts';
import { openTestApp, TEST_COMMON, type TestApp } from '../../test/helpers/app.ts';
import { encodeTx } from '../primitives/tx/encode.ts';

const common = TEST_COMMON;
const GWEI = 1_000_000_000n;
const ETH = 10n ** 18n;
const dev = deriveAccounts(DEV_MNEMONIC, 10);
const [alice, bob, carol, dave] = dev as [DevAccount, DevAccount, DevAccount, DevAccount];
const etherbase = new Uint8Array(20).fill(0xee);
const r1 = new Uint8Array(20).fill(0x11);
const r2 = new Uint8Array(20).fill(0x22);
const SUPPLY = 10n * DEV_BALANCE;
const REVERT_RUNTIME = hexToBytes('0x60006000fd'); // PUSH1 0 PUSH1 0 REVERT
const DEPLOY_REVERTER = hexToBytes('0x6460006000fd6000526005601bf3'); // returns REVERT_RUNTIME

// The test stack's etherbase is the helper's default (0xee…), which the fee assertions below read.
const open = (path: string): Promise<TestApp> => openTestApp(path);

/** Plain-data form for comparisons: byte arrays (Buffer or Uint8Array) become hex. */
function norm(v: unknown): unknown {
  if (v instanceof Uint8Array) return bytesToHex(v);
  if (Array.isArray(v)) return v.map(norm);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, norm(x)]));
  return v;
}

function signed(
  from: DevAccount,
  nonce: bigint,
  o: { to?: Uint8Array; value?: bigint; data?: Uint8Array; gas?: bigint; tip?: bigint } = {},
): Uint8Array {
  return createFeeMarket1559Tx(
    {
      nonce,
      to: o.to,
      value: o.value ?? 0n,
      data: o.data,
      gasLimit: o.gas ?? 21_000n,
      maxFeePerGas: 10n * GWEI,
      maxPriorityFeePerGas: o.tip ?? GWEI,
    },
    { common },
  )
    .sign(from.privateKey)
    .serialize();
}

describe('KestrelApp over LevelDB', () => {
  let dir: string;
  let node: TestApp;
  const blocks: BlockRecord[] = [];
  const receipts: ReceiptRecord[][] = [];
  const contracts: Uint8Array[] = [];
  const watched = () => [...dev.map((a) => a.address), r1, r2, etherbase, ...contracts];

  async function produce(txs: ExecTx[], time?: bigint) {
    const parent = node.app.head;
    const res = await node.app.finalizeBlock({ txs, time: time ?? parent.header.timestamp + 2n });
    assert.equal(node.app.head.number, parent.number, 'finalizeBlock does not move the head');
    const c = await node.app.commit();
    assert.equal(node.app.head.hash, c.block.hash);
    blocks.push(c.block);
    receipts.push(c.receipts);
    return res;
  }

  async function balances(root: Uint8Array, st = node.state): Promise<bigint[]> {
    const view = st.readView(root);
    return watched().map((a) => view.account(a)?.balance ?? 0n);
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kestrel-app-'));
    node = await open(join(dir, 'db'));
    blocks.push(node.app.head);
    receipts.push([]);
  });
  after(async () => {
    await node.kv.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });

  test('genesis block 0 funds the dev accounts', async () => {
    const g = node.app.head;
    assert.equal(g.number, 0n);
    assert.deepEqual(g.header.hash(), g.hash);
    assert.equal(g.header.timestamp, BigInt(Date.parse('2024-01-01T00:00:00Z') / 1000));
    assert.equal(g.header.baseFeePerGas, GWEI);
    assert.equal(g.header.gasLimit, 30_000_000n);
    const bal = await balances(g.header.stateRoot);
    assert.equal(
      bal.reduce((a, b) => a + b, 0n),
      SUPPLY,
    );
    assert.equal(bal[0], DEV_BALANCE);
  });

  test('block 1: transfers, and a tx invalid at execution is rejected, not included', async () => {
    const ok = [
      await node.app.checkTx(signed(alice, 0n, { to: r1, value: ETH })),
      await node.app.checkTx(signed(alice, 1n, { to: r2, value: 2n * ETH })),
      await node.app.checkTx(signed(bob, 0n, { to: r1, value: 3n, tip: 2n * GWEI })),
      await node.app.checkTx(
        createLegacyTx({ nonce: 0n, to: r2, value: 5n, gasLimit: 21_000n, gasPrice: 3n * GWEI }, { common })
          .sign(dave.privateKey)
          .serialize(),
      ),
    ];
    const gapped = await node.app.checkTx(signed(carol, 5n, { to: r1, value: 1n })); // admission allows future nonces
    const res = await produce([ok[0]!, gapped, ok[1]!, ok[2]!, ok[3]!]);
    assert.equal(res.block.number, 1n);
    assert.deepEqual(
      res.block.txHashes,
      ok.map((t) => t.hash),
    );
    assert.deepEqual(
      res.rejected.map((r) => bytesToHex(r.hash)),
      [bytesToHex(gapped.hash)],
    );
    assert.match(res.rejected[0]!.error.message, /nonce/);
    assert.ok(res.receipts.every((r) => r.status === 1));
    assert.deepEqual(res.block.senders, [alice.address, alice.address, bob.address, dave.address]);
    assert.deepEqual(res.receipts[3]!.effectiveGasPrice, 3n * GWEI);
    const view = node.state.readView(res.block.header.stateRoot);
    assert.equal(view.account(r1)?.balance, ETH + 3n);
    assert.equal(view.account(alice.address)?.nonce, 2n);
    assert.equal(view.account(carol.address)?.nonce ?? 0n, 0n);
  });

  test('block 2: contract deployments (one whose initcode reverts gets status 0)', async () => {
    const deploy = await node.app.checkTx(signed(alice, 2n, { data: DEPLOY_REVERTER, gas: 100_000n }));
    const badInit = await node.app.checkTx(signed(bob, 1n, { data: REVERT_RUNTIME, gas: 100_000n }));
    const res = await produce([deploy, badInit]);
    assert.deepEqual(
      res.receipts.map((r) => r.status),
      [1, 0],
    );
    const addr = createContractAddress(new Address(alice.address), 2n).bytes;
    assert.deepEqual(res.receipts[0]!.contractAddress, addr);
    assert.equal(res.receipts[0]!.to, undefined);
    contracts.push(addr, res.receipts[1]!.contractAddress!);
    const view = node.state.readView(res.block.header.stateRoot);
    assert.deepEqual(view.code(addr), REVERT_RUNTIME);
    assert.equal(view.code(res.receipts[1]!.contractAddress!).length, 0);
    assert.equal(view.account(bob.address)?.nonce, 2n, 'a failed deploy still uses the nonce');
  });

  test('block 3: a call that REVERTs is included with status 0 and pays for its gas', async () => {
    const call = await node.app.checkTx(signed(carol, 0n, { to: contracts[0], gas: 50_000n, value: 7n }));
    const transfer = await node.app.checkTx(signed(carol, 1n, { to: r2, value: 1n }));
    const before = await balances(node.app.head.header.stateRoot);
    const res = await produce([call, transfer]);
    assert.deepEqual(
      res.receipts.map((r) => r.status),
      [0, 1],
    );
    assert.ok(res.receipts[0]!.gasUsed > 21_000n && res.receipts[0]!.gasUsed < 50_000n);
    const after = await balances(res.block.header.stateRoot);
    const fees = res.receipts.reduce((s, r) => s + r.gasUsed * r.effectiveGasPrice, 0n);
    assert.equal(before[2]! - after[2]!, fees + 1n, 'reverted value returns; carol pays fees + 1 wei');
    assert.equal(after[watched().length - 2]!, 0n, 'the reverting contract holds no value');
  });

  test("block 4: an empty block only stores its parent's hash (EIP-2935); time never goes backwards", async () => {
    const parent = node.app.head;
    const res = await produce([], 0n);
    assert.equal(res.block.txs.length, 0);
    assert.equal(res.block.header.gasUsed, 0n);
    assert.equal(res.block.header.timestamp, parent.header.timestamp + 1n);
    // The history contract (in the dev genesis) holds the parent's hash at slot (number − 1) mod 8191.
    const history = hexToBytes('0x0000f90827f1c53a10cb7a02335b175320002935');
    const slot = new Uint8Array(32);
    slot[31] = Number((res.block.number - 1n) % 8191n);
    const view = node.state.readView(res.block.header.stateRoot);
    assert.deepEqual(bytesToHex(view.storage(history, slot)), bytesToHex(parent.hash));
    assert.notDeepEqual(res.block.header.stateRoot, parent.header.stateRoot);
    assert.equal(BigInt(bytesToHex(node.state.readView(parent.header.stateRoot).storage(history, slot))), 0n);
  });

  test('finalize/commit misuse is refused', async () => {
    await assert.rejects(node.app.commit(), KestrelError);
    await node.app.finalizeBlock({ txs: [], time: 0n });
    await assert.rejects(node.app.finalizeBlock({ txs: [], time: 0n }), /finalizeBlock called twice/);
    await node.app.commit();
    blocks.push(node.app.head);
    receipts.push([]);
  });

  test('checkTx is judged against the latest committed state', async () => {
    await assert.rejects(
      node.app.checkTx(signed(alice, 0n, { to: r1 })),
      (e: unknown) => e instanceof TxRejectedError && e.message === 'nonce too low',
    );
    const poor = deriveAccounts('legal winner thank year wave sausage worth useful legal winner thank yellow', 1)[0]!;
    await assert.rejects(
      node.app.checkTx(signed(poor, 0n, { to: r1 })),
      /insufficient funds for gas \* price \+ value/,
    );
  });

  test('headers: numbering, links, hashes, roots, gas and base fee', async () => {
    for (let i = 1; i < blocks.length; i++) {
      const b = blocks[i]!;
      const p = blocks[i - 1]!;
      const h = b.header;
      assert.equal(b.number, BigInt(i));
      assert.equal(h.number, BigInt(i));
      assert.deepEqual(h.parentHash, p.hash);
      assert.deepEqual(h.hash(), b.hash);
      assert.deepEqual(h.coinbase.bytes, etherbase);
      assert.ok(h.timestamp > p.header.timestamp);
      assert.equal(h.baseFeePerGas, p.header.calcNextBaseFee());
      assert.deepEqual(
        h.transactionsTrie,
        await genTransactionsTrieRoot(b.txs.map((t) => createTxFromRLP(encodeTx(t), { common }))),
      );
      assert.deepEqual(h.receiptTrie, await receiptsRoot(receipts[i]!));
      if (b.txs.length > 0) assert.notDeepEqual(h.stateRoot, p.header.stateRoot);
      let prev = 0n;
      for (const r of receipts[i]!) {
        assert.ok(r.cumulativeGasUsed > prev);
        assert.equal(r.cumulativeGasUsed - prev, r.gasUsed);
        prev = r.cumulativeGasUsed;
      }
      assert.equal(prev, h.gasUsed);
    }
  });

  test('fees go to the etherbase, nothing is burned: total supply is constant at every height', async () => {
    let paid = 0n;
    for (let i = 0; i < blocks.length; i++) {
      const bal = await balances(blocks[i]!.header.stateRoot);
      assert.equal(
        bal.reduce((a, b) => a + b, 0n),
        SUPPLY,
        `supply at block ${i}`,
      );
      paid += receipts[i]!.reduce((s, r) => s + r.gasUsed * r.effectiveGasPrice, 0n);
      assert.equal(bal[12], paid, `etherbase at block ${i} holds every fee paid so far`);
    }
    assert.ok(paid > 0n);
  });

  test('query /evm/account answers the RLP account at a height', async () => {
    const latest = createAccountFromRLP(await node.app.query('/evm/account', alice.address));
    assert.equal(latest.nonce, 3n);
    const atOne = createAccountFromRLP(await node.app.query('/evm/account', alice.address, 1n));
    assert.equal(atOne.nonce, 2n);
    assert.equal((await node.app.query('/evm/account', new Uint8Array(20).fill(0x99))).length, 0);
    await assert.rejects(node.app.query('/evm/account', alice.address, node.app.head.number + 1n), NotFoundError);
    await assert.rejects(node.app.query('/evm/account', new Uint8Array(3)), KestrelError);
    await assert.rejects(node.app.query('/bank/balance', alice.address), NotFoundError);
  });

  test('ChainQuery.account at the head follows every commit (the head cache never serves a stale block)', async () => {
    const q = new ChainQuery(node.app, node.chain, node.state);
    const to = r2;
    const before = node.app.head;
    const a0 = await q.account(dev[6]!.address, before);
    assert.equal(await q.account(dev[6]!.address, before), a0, 'a repeated head read is served from the cache');
    const toBefore = (await q.account(to, before)).balance;
    await produce([await node.app.checkTx(signed(dev[6]!, a0.nonce, { to, value: 7n }))]);
    const a1 = await q.account(dev[6]!.address, node.app.head);
    assert.equal(a1.nonce, a0.nonce + 1n);
    assert.equal((await q.account(to, node.app.head)).balance, toBefore + 7n);
    // The old head is now historical: read from its state root, not from the cache of the new head.
    assert.equal((await q.account(dev[6]!.address, before)).nonce, a0.nonce);
    assert.deepEqual(await q.account(new Uint8Array(20).fill(0x98), node.app.head), {
      nonce: 0n,
      balance: 0n,
      codeHash: EMPTY_CODE_HASH,
      storageRoot: EMPTY_TRIE_ROOT,
    });
  });

  test('close and reopen: same head, hashes, receipts and archive balances; the chain continues', async () => {
    const expected = await Promise.all(blocks.map((b) => balances(b.header.stateRoot)));
    const headHash = node.app.head.hash;
    await node.kv.close();
    node = await open(join(dir, 'db'));
    assert.equal(node.app.head.number, BigInt(blocks.length - 1));
    assert.deepEqual(node.app.head.hash, headHash);
    for (let i = 0; i < blocks.length; i++) {
      const b = node.chain.blockByNumber(BigInt(i))!;
      assert.deepEqual(b.hash, blocks[i]!.hash);
      assert.deepEqual(b.header.serialize(), blocks[i]!.header.serialize());
      assert.deepEqual(b.txHashes, blocks[i]!.txHashes);
      assert.deepEqual(b.senders.map(bytesToHex), blocks[i]!.senders.map(bytesToHex));
      assert.equal(b.size, blocks[i]!.size);
      assert.equal(node.chain.numberOfHash(b.hash), BigInt(i));
      assert.deepEqual(norm(node.chain.receipts(BigInt(i))), norm(receipts[i]));
      b.txHashes.forEach((h, idx) =>
        assert.deepEqual(node.chain.txLocation(h), { blockNumber: BigInt(i), index: idx }),
      );
      assert.deepEqual(await balances(b.header.stateRoot), expected[i], `balances at block ${i}`);
    }
    const atOne = createAccountFromRLP(await node.app.query('/evm/account', r1, 1n));
    assert.equal(atOne.balance, ETH + 3n);
    // the reopened app builds on the stored head
    const next = await node.app.checkTx(signed(alice, 3n, { to: r1, value: 1n }));
    const res = await produce([next]);
    assert.equal(res.block.number, BigInt(blocks.length - 1));
    assert.deepEqual(res.block.header.parentHash, blocks.at(-2)!.hash);
    assert.equal(res.receipts[0]!.status, 1);
    const bal = await balances(res.block.header.stateRoot);
    assert.equal(
      bal.reduce((a, b) => a + b, 0n),
      SUPPLY,
    );
  });
});
