// A full disk: the node's home sits on a size-limited tmpfs the test mounts (root only), nearly filled by a filler
// file, while transactions keep arriving. When a block's commit (or the pool journal, or a key file) meets
// ENOSPC, the node must stop making blocks with one clear error — no crash, no retry loop, no half-written block —
// and keep answering reads; after the space is freed and it restarts, it continues from its last whole block with
// the journal's transactions intact, and every block verifies. (LevelDB's log may end in a partial record after a
// failed write; a later write behind it would be lost at reopen, so nothing is written until the restart.)
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { Wallet } from 'ethers';
import { CHAIN_ID, DEV_ACCOUNTS, DEV_BALANCE } from '../helpers/accounts.ts';
import {
  type KestrelNode,
  post,
  printLogsOnFailure,
  rpc,
  rpcResult,
  sleep,
  startNode,
  waitFor,
} from '../helpers/node.ts';
import { privateRpc } from '../helpers/privateRpc.ts';
import { type AckedTx, RestartAudit } from './support.ts';

const SUPPLY = BigInt(DEV_ACCOUNTS.length) * DEV_BALANCE;
const FS_BYTES = 48 * 1024 * 1024;
const LEAVE_FREE = 1536 * 1024;

/** Mounts a tmpfs of `bytes` at a fresh directory; undefined when this process may not mount (not root). */
function mountTmpfs(bytes: number): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'kestrel-fulldisk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir], { stdio: 'pipe' });
    return dir;
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
}

const canMount = (() => {
  const d = mountTmpfs(1024 * 1024);
  if (d === undefined) return false;
  execFileSync('umount', [d]);
  rmSync(d, { recursive: true, force: true });
  return true;
})();

describe(
  'a full disk',
  { skip: canMount ? false : 'mounting a size-limited tmpfs needs root', timeout: 600_000 },
  () => {
    let mnt = '';
    let node: KestrelNode | undefined;
    const wallet = new Wallet(DEV_ACCOUNTS[3]!.privateKey);
    const acked: AckedTx[] = [];
    let nonce = 0;

    before(() => {
      mnt = mountTmpfs(FS_BYTES)!;
    });
    afterEach(printLogsOnFailure(() => node));
    after(async () => {
      await node?.dispose();
      if (mnt !== '') {
        execFileSync('umount', ['-l', mnt]);
        rmSync(mnt, { recursive: true, force: true });
      }
    });

    /** Signs and sends a self-transfer carrying `bytes` of calldata; the hash, or the error message. */
    async function send(bytes: number): Promise<{ hash?: string; error?: string }> {
      const raw = await wallet.signTransaction({
        type: 2,
        chainId: BigInt(CHAIN_ID),
        nonce,
        to: wallet.address,
        data: '0x' + 'ab'.repeat(bytes),
        gasLimit: 5_000_000n,
        maxFeePerGas: 10n ** 11n,
        maxPriorityFeePerGas: 10n ** 9n,
      });
      const res = await post(
        node!.http,
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [raw] }),
        { timeoutMs: 30_000 },
      );
      const r = res.json as { result?: string; error?: { message: string } };
      if (r.result !== undefined) {
        acked.push({ hash: r.result, sender: wallet.address, nonce });
        nonce++;
        return { hash: r.result };
      }
      return { error: r.error?.message ?? `HTTP ${res.status}` };
    }

    it('stops making blocks with one clear error, answers reads, and resumes from its last whole block after a restart', async () => {
      const home = join(mnt, 'home');
      node = await startNode({ home });
      const coinbase = await rpcResult<string>(node.http, 'eth_coinbase');
      const accounts = [...new Set([...DEV_ACCOUNTS.map((a) => a.address.toLowerCase()), coinbase.toLowerCase()])];
      const audit = new RestartAudit(accounts, SUPPLY);
      await audit.check(node.http, 'start');
      nonce = Number(
        BigInt(await rpcResult<string>(node.http, 'eth_getTransactionCount', [wallet.address, 'pending'])),
      );

      // Fill the filesystem but for a little room, then send 100 KB transactions until block production stops.
      const fs = statfsSync(mnt);
      writeFileSync(join(mnt, 'filler'), Buffer.alloc(Math.max(0, fs.bavail * fs.bsize - LEAVE_FREE)));
      const refusals: string[] = [];
      await waitFor(
        'block production to stop on the full disk',
        async () => {
          // Large ones until the journal has no room left, then small ones that fit its preallocated file.
          const r = await send(refusals.length === 0 ? 100_000 : 100);
          if (r.error !== undefined) refusals.push(r.error);
          return /block production stopped/.test(node!.logs()) ? true : undefined;
        },
        120_000,
      );
      const headAtFailure = await rpcResult<string>(node.http, 'eth_blockNumber');

      // Full: the process lives, reads answer, a write that needs the store fails with the reason, no block is made.
      assert.equal(node.proc.exitCode, null, 'the node is still running');
      assert.ok(BigInt(await rpcResult<string>(node.http, 'eth_getBalance', [wallet.address, 'latest'])) > 0n);
      await rpcResult(node.http, 'eth_getBlockByNumber', [headAtFailure, true]);
      const mine = await rpc(node.http, 'evm_mine');
      assert.match(mine.error?.message ?? '', /database could not be written.*free space and restart/);
      const key = await privateRpc(node, 'personal_newAccount', ['a passphrase']);
      assert.ok(key.error !== undefined || typeof key.result === 'string', 'personal_newAccount answers');
      await sleep(1_000);
      assert.equal(await rpcResult<string>(node.http, 'eth_blockNumber'), headAtFailure, 'no block after the failure');
      assert.equal(node.logs().match(/block production stopped/g)?.length, 1, 'one clear error, no retry loop');
      for (const e of refusals)
        assert.match(e, /pool journal could not be written|replacement transaction underpriced/);

      // Space freed: still no block until the restart (fail-stop), then the chain goes on from its last whole block.
      rmSync(join(mnt, 'filler'));
      assert.ok((await rpc(node.http, 'evm_mine')).error !== undefined, 'no write before the restart');
      assert.equal(await node.stop('SIGTERM'), 0, 'a clean stop on the failed store');
      node = await startNode({ home });
      // The failed batch is all or nothing in LevelDB's log: it may still have reached the disk (its write failed
      // after the bytes were handed over, and the clean close flushed them), so the head is the last block before
      // the failure or the failed block, whole — never part of one (the audit verifies every block).
      const reopened = BigInt(await rpcResult<string>(node.http, 'eth_blockNumber'));
      const before = BigInt(headAtFailure);
      assert.ok(reopened === before || reopened === before + 1n, `head ${reopened} after a failure at ${before}`);
      audit.unresolved.push(...acked);
      await audit.check(node.http, 'after the restart');
      await waitFor(
        'the journal’s transactions to be mined',
        async () => {
          const s = await rpcResult<{ pending: string; queued: string }>(node!.http, 'txpool_status');
          return BigInt(s.pending) === 0n && BigInt(s.queued) === 0n ? true : undefined;
        },
        60_000,
      );
      await audit.check(node.http, 'after the pool drained');
      assert.equal(audit.unresolved.length, 0, 'every acknowledged transaction is mined');
      assert.equal(audit.mined.size, acked.length);
      const accountsAfter = await privateRpc<string[]>(node, 'personal_listAccounts');
      assert.ok(Array.isArray(accountsAfter.result), 'the key store opens');
    });
  },
);
