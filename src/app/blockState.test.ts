// The head's block state (the tries and values a block hands to the next) within its [cache] share: a bounded app
// keeps it under the bound block after block and builds the same chain as an unbounded one.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { deriveAccounts, DEV_MNEMONIC } from '../keys/devAccounts.ts';
import { bytesToHex } from '../primitives/hex.ts';
import { openTestApp, TEST_COMMON, type TestApp } from '../../test/helpers/app.ts';
import { READER_ENTRY_BYTES } from './evm/archiveReader.ts';
import { execTxOf } from './evm/execTx.testing.ts';
import type { ExecTx } from './evm/executor.ts';

const dev = deriveAccounts(DEV_MNEMONIC, 4);
const GWEI = 1_000_000_000n;
const BOUND_ENTRIES = 40;
const BLOCKS = 12;

/** Block `b`'s transfers: each dev account pays two fresh addresses, so every block reads and adds trie nodes. */
function blockTxs(b: number): ExecTx[] {
  const txs: ExecTx[] = [];
  for (const [i, from] of dev.entries()) {
    for (let k = 0; k < 2; k++) {
      const to = new Uint8Array(20).fill(0x40 + i);
      to[18] = b;
      to[19] = k;
      const t = createFeeMarket1559Tx(
        {
          nonce: BigInt(b * 2 + k),
          to,
          value: 1n,
          gasLimit: 21_000n,
          maxFeePerGas: 10n * GWEI,
          maxPriorityFeePerGas: GWEI,
        },
        { common: TEST_COMMON },
      ).sign(from.privateKey);
      txs.push(execTxOf(t, from.address));
    }
  }
  return txs;
}

describe('block state within its budget share', () => {
  let dir: string;
  let bounded: TestApp;
  let unbounded: TestApp;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kestrel-blockstate-'));
    bounded = await openTestApp(join(dir, 'bounded'), () => ({ blockStateBytes: BOUND_ENTRIES * READER_ENTRY_BYTES }));
    unbounded = await openTestApp(join(dir, 'unbounded'));
  });
  after(async () => {
    await bounded.kv.close();
    await unbounded.kv.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('stays under its bound after every block, with the same blocks and state roots as without one', async () => {
    let unboundedMax = 0;
    for (let b = 0; b < BLOCKS; b++) {
      const roots: string[] = [];
      for (const node of [bounded, unbounded]) {
        const res = await node.app.finalizeBlock({ txs: blockTxs(b), time: node.app.head.header.timestamp + 2n });
        assert.ok(res.receipts.every((r) => r.status === 1));
        const c = await node.app.commit();
        roots.push(`${bytesToHex(c.block.hash)} ${bytesToHex(c.block.header.stateRoot)}`);
      }
      assert.equal(roots[0], roots[1], `block ${b}`);
      assert.ok(
        bounded.app.blockStateBytes <= BOUND_ENTRIES * READER_ENTRY_BYTES,
        `block ${b}: ${bounded.app.blockStateBytes} bytes`,
      );
      unboundedMax = Math.max(unboundedMax, unbounded.app.blockStateBytes);
    }
    // Without the bound the same blocks hold more: the bound is what kept the other one small.
    assert.ok(unboundedMax > BOUND_ENTRIES * READER_ENTRY_BYTES, `unbounded peak ${unboundedMax} bytes`);
  });
});
