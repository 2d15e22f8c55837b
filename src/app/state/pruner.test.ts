// Pruning: an archive node and a keep-recent-100 node are fed the same 10,000 blocks of state churn (a transfer or
// a storage write per block, over a fixed set of accounts and slots). The pruned node's state entries stop
// growing, its head state root and proofs equal the archive node's, recent history stays readable, and older
// state answers geth's missing-trie-node error. KESTREL_PRUNE_BLOCKS shortens the run for local iteration.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Common } from '@ethereumjs/common';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { Address, createContractAddress } from '@ethereumjs/util';
import { deriveAccounts, DEV_MNEMONIC } from '../../keys/devAccounts.ts';
import { KvStore } from '../../store/kv.ts';
import { trieKey } from '../../store/schema.ts';
import { directoryBytes } from '../../metrics/nodeMetrics.ts';
import { proveAccount } from './proof.ts';
import { pruningConfig } from '../../config/pruning.ts';
import { StatePruner } from './pruner.ts';
import { DEV_GENESIS, openTestApp, TEST_COMMON } from '../../../test/helpers/app.ts';
import { MissingTrieNodeError } from '../../primitives/trie/read.ts';

const BLOCKS = Number(process.env.KESTREL_PRUNE_BLOCKS ?? 10_000);
const KEEP = 100;
const common: Common = TEST_COMMON;
const senders = deriveAccounts(DEV_MNEMONIC, 4);
const recipients = Array.from({ length: 24 }, (_, i) => new Uint8Array(20).fill(0x40 + i));
// Runtime: SSTORE(number % 16, calldata[0..32]); deployed by a 12-byte init code that returns it.
const RUNTIME = '60003543600f165500';
const INIT = '6009600c60003960096000f3' + RUNTIME;
const GWEI = 1_000_000_000n;
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function open(pruning: string) {
  const dir = mkdtempSync(join(tmpdir(), `kestrel-prune-${pruning}-`));
  dirs.push(dir);
  const cfg = pruning === 'archive' ? pruningConfig('archive') : pruningConfig('custom', KEEP, 50);
  let pruner: StatePruner | undefined;
  // Without the history contract: its ring of 8191 slots fills over the first 8191 blocks, state that grows for
  // real and would hide the bounded history this test measures.
  const genesis = { ...DEV_GENESIS, accounts: [] };
  const { kv, state, app } = await openTestApp(join(dir, 'db'), ({ kv, chain, state }) => {
    if (cfg.mode === 'archive') return { genesis };
    const p = new StatePruner(kv, cfg, (n) => chain.blockByNumber(n)?.header.stateRoot);
    pruner = p;
    state.checkRoots = true;
    return { genesis, afterCommit: (c) => p.afterCommit(c.block.number) };
  });
  return { dir, kv, app, state, pruner };
}

/** Number of trie entries (nodes and code) in the store. */
async function trieEntries(kv: KvStore): Promise<number> {
  let n = 0;
  for await (const _ of kv.keys(trieKey(new Uint8Array(0)), Uint8Array.of(0x74))) n++;
  return n;
}

describe('state pruning', { timeout: 1_800_000 }, () => {
  it(`keep-recent ${KEEP} over ${BLOCKS} blocks: bounded state, same head root and proofs as an archive node`, async () => {
    const archive = await open('archive');
    const pruned = await open('custom');
    const nodes = [archive, pruned];
    const nonces = senders.map(() => 0n);
    const contract = createContractAddress(new Address(senders[0]!.address), 0n).bytes;
    const sign = (i: number, to: Uint8Array | undefined, data: string, value: bigint) =>
      createFeeMarket1559Tx(
        {
          chainId: 9000n,
          nonce: nonces[i]!++,
          to,
          value,
          data: Buffer.from(data, 'hex'),
          gasLimit: 200_000n,
          maxFeePerGas: 100n * GWEI,
          maxPriorityFeePerGas: 1n,
        },
        { common },
      )
        .sign(senders[i]!.privateKey)
        .serialize();
    const entriesAt: Record<number, number> = {};
    for (let h = 1; h <= BLOCKS; h++) {
      const raws =
        h === 1
          ? [sign(0, undefined, INIT, 0n)]
          : h % 2 === 0
            ? [sign(h % 4, recipients[(h / 2) % recipients.length], '', BigInt(h))]
            : [sign(h % 4, contract, h.toString(16).padStart(64, '0'), 0n)];
      for (const n of nodes) {
        const txs = raws.map((r) => n.app.decode(r));
        const res = await n.app.finalizeBlock({ txs, time: 1_800_000_000n + BigInt(h) });
        assert.equal(res.rejected.length, 0, `block ${h}: ${JSON.stringify(res.rejected)}`);
        await n.app.commit();
      }
      assert.deepEqual(pruned.app.head.header.stateRoot, archive.app.head.header.stateRoot, `state root at ${h}`);
      if (h === BLOCKS / 2 || h === BLOCKS) entriesAt[h] = await trieEntries(pruned.kv);
    }
    const archiveEntries = await trieEntries(archive.kv);
    // The pruned store holds the live state plus at most interval + keep-recent blocks of changes; the archive grows.
    assert.ok(
      entriesAt[BLOCKS]! <= entriesAt[BLOCKS / 2]! * 1.1,
      `pruned entries ${entriesAt[BLOCKS / 2]} -> ${entriesAt[BLOCKS]}`,
    );
    // A short local run (KESTREL_PRUNE_BLOCKS) has had less time to pile up history.
    assert.ok(
      archiveEntries > entriesAt[BLOCKS]! * (BLOCKS >= 5_000 ? 5 : 1.5),
      `archive ${archiveEntries} vs pruned ${entriesAt[BLOCKS]}`,
    );
    const head = archive.app.head;
    for (const who of [senders[1]!.address, recipients[3]!, contract, new Uint8Array(20).fill(0xee)]) {
      const slots = [new Uint8Array(32), Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 7 : 0))];
      const [a, p] = await Promise.all(
        [archive, pruned].map((n) => proveAccount(n.state.readView(head.header.stateRoot), who, slots)),
      );
      assert.deepEqual(p, a);
    }
    // Recent history is readable on both; beyond keep-recent only the archive answers.
    const recent = archive.app.head.number - BigInt(KEEP) + 1n;
    const recentRoot = await archive.app.query('/evm/account', contract, recent);
    assert.deepEqual(await pruned.app.query('/evm/account', contract, recent), recentRoot);
    const old = BigInt(Math.floor(BLOCKS / 3));
    assert.ok((await archive.app.query('/evm/account', contract, old)).length > 0);
    await assert.rejects(pruned.app.query('/evm/account', contract, old), (e: unknown) => {
      assert.ok(e instanceof MissingTrieNodeError);
      assert.match(
        (e as Error).message,
        /^missing trie node [0-9a-f]{64} \(path \) state 0x[0-9a-f]{64} is not available$/,
      );
      return true;
    });
    assert.equal(pruned.pruner!.earliestState() >= head.number - BigInt(KEEP), true);
    for (const n of nodes) await n.kv.close();
    const archiveBytes = await directoryBytes(join(archive.dir, 'db'));
    const prunedBytes = await directoryBytes(join(pruned.dir, 'db'));
    process.stdout.write(
      `# ${BLOCKS} blocks: trie entries archive ${archiveEntries}, pruned ${entriesAt[BLOCKS / 2]} (at ${BLOCKS / 2}) -> ${entriesAt[BLOCKS]}; ` +
        `disk archive ${(archiveBytes / 1e6).toFixed(1)} MB, pruned ${(prunedBytes / 1e6).toFixed(1)} MB\n`,
    );
  });
});
