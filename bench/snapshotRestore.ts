// A snapshot restore in process, timed: a node makes --blocks blocks of --txs transfers each (every one to a new
// account), writes its snapshot, and an empty node restores it chunk by chunk as CometBFT would drive it. Prints
// the snapshot's wall time and the longest event-loop stall while it is written, and the restore's wall and CPU
// time; run with --cpu-prof to see where it goes.
//   nice node --import tsx bench/snapshotRestore.ts [--blocks 300] [--txs 40]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { ResponseApplySnapshotChunk_Result as Apply } from 'cosmjs-types/tendermint/abci/types';
import { deriveAccounts, DEV_MNEMONIC } from '../src/keys/devAccounts.ts';
import { SnapshotStore } from '../src/snapshots/store.ts';
import { openSnapshotApp, TEST_COMMON } from '../test/helpers/app.ts';

const { values: args } = parseArgs({
  options: { blocks: { type: 'string', default: '300' }, txs: { type: 'string', default: '40' } },
});
const [alice] = deriveAccounts(DEV_MNEMONIC, 1);
const dirs: string[] = [];

async function node() {
  const dir = mkdtempSync(join(tmpdir(), 'kestrel-snaprestore-'));
  dirs.push(dir);
  return { dir, ...(await openSnapshotApp(join(dir, 'db'), (l) => console.log(l))) };
}

try {
  const src = await node();
  let nonce = 0n;
  let k = 0;
  for (let h = 1; h <= Number(args.blocks); h++) {
    const raws = Array.from({ length: Number(args.txs) }, () => {
      const to = Buffer.alloc(20);
      to.writeUInt32BE(0x10_0000 + k++, 16);
      const tx = { chainId: 9000n, nonce: nonce++, to, value: 1n, gasLimit: 21_000n, maxFeePerGas: 10n ** 11n };
      return createFeeMarket1559Tx({ ...tx, maxPriorityFeePerGas: 1n }, { common: TEST_COMMON })
        .sign(alice!.privateKey)
        .serialize();
    });
    await src.app.finalizeBlock({ txs: raws.map((r) => src.app.decode(r)), time: 1_800_000_000n + BigInt(h) });
    await src.app.commit();
  }
  const store = new SnapshotStore(join(src.dir, 'snapshots'), src.kv, { interval: 1, keepRecent: 1 }, console.log);
  // The longest the event loop went without a turn while the snapshot was written (blocks wait that long).
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const s0 = performance.now();
  const snap = await store.create(src.app.head.number, src.app.head.header.stateRoot);
  loop.disable();
  console.log(
    `snapshot: ${(performance.now() - s0).toFixed(0)} ms wall, longest event-loop stall ${(loop.max / 1e6).toFixed(1)} ms`,
  );
  const empty = await node();
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  empty.restore.offer({ snapshot: snap, appHash: src.bank.appHash(src.app.head) });
  for (let i = 0; i < snap.chunks; i++) {
    const r = await empty.restore.apply({ index: i, chunk: store.chunk(snap.height, 1, i), sender: 'peer' });
    if (r.result !== Apply.ACCEPT) throw new Error(`chunk ${i}: ${Apply[r.result]}`);
  }
  const cpu = process.cpuUsage(c0);
  console.log(
    `restore: ${snap.chunks} chunk(s), ${(performance.now() - t0).toFixed(0)} ms wall, ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms CPU`,
  );
  for (const n of [src, empty]) await n.kv.close();
} finally {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
