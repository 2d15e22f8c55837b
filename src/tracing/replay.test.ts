import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { deriveAccounts, DEV_MNEMONIC } from '../keys/devAccounts.ts';
import { trieKey } from '../store/schema.ts';
import { openTestApp, TEST_COMMON } from '../../test/helpers/app.ts';
import { CallTracer } from './callTracer.ts';
import { BlockReplay, type TracerFactory } from './replay.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const callTracer: TracerFactory = async () => ({
  tracer: new CallTracer({ onlyTopCall: false, withLog: false }),
  close: () => {},
});

test('a replay whose state read failed starts over on the next trace instead of re-running a half-applied tx', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kestrel-replay-'));
  dirs.push(dir);
  const { kv, chain, app } = await openTestApp(join(dir, 'db'));
  const [alice] = deriveAccounts(DEV_MNEMONIC, 1);
  const raws = [0n, 1n, 2n].map((nonce) =>
    createFeeMarket1559Tx(
      {
        chainId: 9000n,
        nonce,
        to: new Uint8Array(20).fill(0x30 + Number(nonce)),
        value: 1n,
        gasLimit: 21_000n,
        maxFeePerGas: 10n ** 11n,
        maxPriorityFeePerGas: 1n,
      },
      { common: TEST_COMMON },
    )
      .sign(alice!.privateKey)
      .serialize(),
  );
  await app.finalizeBlock({ txs: raws.map((r) => app.decode(r)), time: 1_800_000_001n });
  const { block } = await app.commit();
  const parentRoot = chain.blockByNumber(block.number - 1n)!.header.stateRoot;
  const mined = chain.blockByNumber(block.number)!;
  let failAfter = Infinity;
  let reads = 0;
  const deps = {
    common: TEST_COMMON,
    hashOf: (n: bigint) => chain.blockByNumber(n)?.hash,
    readNode: (k: Uint8Array) => {
      reads++;
      if (failAfter-- <= 0) throw new Error('state read lost');
      return kv.get(trieKey(k));
    },
  };
  const expected = await new BlockReplay(deps, mined, parentRoot).trace(2, callTracer, 0);
  reads = 0;
  await new BlockReplay(deps, mined, parentRoot).trace(1, callTracer, 0);
  const firstTxReads = reads;
  assert.ok(firstTxReads >= 2, `${firstTxReads} reads`);
  // The last read of the replay of transactions 0 and 1 fails: the world is left half-applied.
  const replay = new BlockReplay(deps, mined, parentRoot);
  failAfter = firstTxReads - 1;
  await assert.rejects(replay.trace(2, callTracer, 0), /state read lost/);
  failAfter = Infinity;
  assert.deepEqual(await replay.trace(2, callTracer, 0), expected);
  await kv.close();
});
