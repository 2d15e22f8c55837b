import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { ChainQuery } from '../app/query.ts';
import { deriveAccounts, DEV_MNEMONIC } from '../keys/devAccounts.ts';
import { openTestApp, TEST_COMMON, type TestApp } from '../../test/helpers/app.ts';
import { TxPool } from './pool.ts';
import { TxSubmitter } from './submit.ts';

const GWEI = 1_000_000_000n;
const [alice] = deriveAccounts(DEV_MNEMONIC, 1);

function transfer(nonce: bigint): Uint8Array {
  return createFeeMarket1559Tx(
    {
      nonce,
      to: new Uint8Array(20).fill(0x42),
      value: 1n,
      gasLimit: 21_000n,
      maxFeePerGas: 10n * GWEI,
      maxPriorityFeePerGas: GWEI,
    },
    { common: TEST_COMMON },
  )
    .sign(alice!.privateKey)
    .serialize();
}

describe('TxSubmitter admissions in flight', () => {
  let dir: string;
  let t: TestApp;
  let txs: TxSubmitter;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kestrel-submit-'));
    t = await openTestApp(join(dir, 'db'));
    txs = new TxSubmitter(t.app, new ChainQuery(t.app, t.chain, t.state), new TxPool(), () => {});
  });
  after(async () => {
    await t.kv.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('counts each submission until it is accepted or refused, and settles when none is left', async () => {
    assert.equal(txs.admissionsInFlight, 0);
    await txs.admissionsSettled(); // none in flight: resolves at once

    // The forwarder (CometBFT mode's hand-off) holds the valid tx's admission open until released.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    txs.useForwarder(() => held);
    let settled = false;
    const accepted = txs.submitRaw(transfer(0n));
    const refused = txs.submitRaw(new Uint8Array([0x02, 0xc0])).catch((e: Error) => e);
    assert.equal(txs.admissionsInFlight, 2);
    const idle = txs.admissionsSettled().then(() => (settled = true));

    const err = await refused;
    assert.ok(err instanceof Error, 'malformed bytes are refused');
    await new Promise((r) => setImmediate(r));
    assert.equal(txs.admissionsInFlight, 1);
    assert.equal(settled, false, 'one submission is still being admitted');
    release();
    await accepted;
    await idle;
    assert.equal(txs.admissionsInFlight, 0);
  });
});
