// State dump and load in Anvil's format (issue 29 item 2), Kestrel → Anvil 1.7.1 → Kestrel: a contract deployed on
// Kestrel with storage (constructor writes and an arbitrary slot), a transfer and a set nonce survive anvil_dumpState
// into Anvil's anvil_loadState, Anvil's own dump back into a fresh Kestrel (over JSON-RPC and as --load-state), and
// Kestrel's --dump-state file loads into `anvil --load-state`.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, afterEach, before, describe, it } from 'node:test';
import { startAnvil } from '../../bench/nodes/anvil.ts';
import type { RunningNode } from '../../bench/nodes/types.ts';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { type KestrelNode, printLogsOnFailure, rpc, rpcResult, startNode } from '../helpers/node.ts';
import { sendTx } from '../helpers/tx.ts';

// Constructor: slot 0 = 0x2a, slot 5 = 0xff; runtime (11 bytes): returns slot 0.
const RUNTIME = '60005460005260206000f3';
const INITCODE = '0x602a60005560ff600555600b6016600039600b6000f3' + RUNTIME;
const FAR_SLOT = '0x' + 'ab'.repeat(32);
const FAR_WORD = '0x' + '00'.repeat(31) + '07';
const word = (n: number) => '0x' + n.toString(16).padStart(64, '0');

/** What the round trip must keep, read from one node. */
async function snapshotOf(url: string, addrs: { contract: string; sender: string; recipient: string; odd: string }) {
  const q = (m: string, p: unknown[]) => rpcResult<string>(url, m, p);
  return {
    code: await q('eth_getCode', [addrs.contract, 'latest']),
    slot0: await q('eth_getStorageAt', [addrs.contract, '0x0', 'latest']),
    slot5: await q('eth_getStorageAt', [addrs.contract, '0x5', 'latest']),
    far: await q('eth_getStorageAt', [addrs.contract, FAR_SLOT, 'latest']),
    call: await q('eth_call', [{ to: addrs.contract }, 'latest']),
    senderNonce: await q('eth_getTransactionCount', [addrs.sender, 'latest']),
    recipient: await q('eth_getBalance', [addrs.recipient, 'latest']),
    oddNonce: await q('eth_getTransactionCount', [addrs.odd, 'latest']),
    oddBalance: await q('eth_getBalance', [addrs.odd, 'latest']),
  };
}

describe(
  'anvil_dumpState / anvil_loadState and --dump-state / --load-state, Kestrel ↔ Anvil',
  { timeout: 180_000 },
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'kestrel-dump-'));
    const dumpFile = join(dir, 'kestrel-state.json');
    const nodes: KestrelNode[] = [];
    const anvils: RunningNode[] = [];
    let source: KestrelNode;
    const key = DEV_ACCOUNTS[8]!.privateKey;
    const addrs = {
      contract: '',
      sender: DEV_ACCOUNTS[8]!.address.toLowerCase(),
      recipient: '0x' + '5e'.repeat(20),
      odd: '0x' + '0d'.repeat(20),
    };
    let expected: Awaited<ReturnType<typeof snapshotOf>>;

    before(async () => {
      source = await startNode({ args: ['--dump-state', dumpFile] });
      nodes.push(source);
      const deployed = await sendTx(source.http, key, { to: null, data: INITCODE, gas: 200_000n });
      assert.equal(deployed.receipt.status, '0x1');
      addrs.contract = deployed.receipt.contractAddress;
      await sendTx(source.http, key, { to: addrs.recipient, value: 12_345n });
      await rpcResult(source.http, 'anvil_setStorageAt', [addrs.contract, FAR_SLOT, FAR_WORD]);
      await rpcResult(source.http, 'anvil_setNonce', [addrs.odd, '0x9']);
      await rpcResult(source.http, 'anvil_setBalance', [addrs.odd, '0x77']);
      expected = await snapshotOf(source.http, addrs);
      assert.equal(expected.slot0, word(0x2a));
      assert.equal(expected.slot5, word(0xff));
      assert.equal(expected.code, '0x' + RUNTIME);
    });
    afterEach(printLogsOnFailure(() => nodes));
    after(async () => {
      await Promise.all([...nodes.map((n) => n.dispose()), ...anvils.map((a) => a.stop())]);
      rmSync(dir, { recursive: true, force: true });
    });

    it("anvil_dumpState is hex of gzipped Anvil JSON; Anvil's anvil_loadState takes it whole", async () => {
      const hex = await rpcResult<string>(source.http, 'anvil_dumpState');
      const json = JSON.parse(gunzipSync(Buffer.from(hex.slice(2), 'hex')).toString('utf8'));
      assert.deepEqual(Object.keys(json).sort(), [
        'accounts',
        'best_block_number',
        'block',
        'blocks',
        'historical_states',
        'transactions',
      ]);
      assert.deepEqual(json.accounts[addrs.contract].storage, {
        [word(0)]: word(0x2a),
        [word(5)]: word(0xff),
        [FAR_SLOT]: FAR_WORD,
      });
      const anvil = await startAnvil();
      anvils.push(anvil);
      assert.equal(await rpcResult(anvil.url, 'anvil_loadState', [hex]), true);
      assert.deepEqual(await snapshotOf(anvil.url, addrs), expected);
    });

    it("Anvil's dump (with a change made on Anvil) loads back into a fresh Kestrel, over JSON-RPC and as --load-state", async () => {
      const anvil = anvils[0]!;
      const newWord = word(0x99);
      await rpcResult(anvil.url, 'anvil_setStorageAt', [addrs.contract, '0x6', newWord]);
      const anvilHex = await rpcResult<string>(anvil.url, 'anvil_dumpState');
      const want = { ...expected, slot6: newWord };

      const viaRpc = await startNode();
      nodes.push(viaRpc);
      assert.equal(await rpcResult(viaRpc.http, 'anvil_loadState', [anvilHex]), true);
      const got = await snapshotOf(viaRpc.http, addrs);
      const slot6 = await rpcResult(viaRpc.http, 'eth_getStorageAt', [addrs.contract, '0x6', 'latest']);
      assert.deepEqual({ ...got, slot6 }, want);

      const file = join(dir, 'anvil-state.json');
      writeFileSync(file, gunzipSync(Buffer.from(anvilHex.slice(2), 'hex')));
      const viaFlag = await startNode({ args: ['--load-state', file] });
      nodes.push(viaFlag);
      const got2 = await snapshotOf(viaFlag.http, addrs);
      const slot6b = await rpcResult(viaFlag.http, 'eth_getStorageAt', [addrs.contract, '0x6', 'latest']);
      assert.deepEqual({ ...got2, slot6: slot6b }, want);
      // The loaded contract runs: a call reads its slot 0.
      assert.equal(await rpcResult(viaFlag.http, 'eth_call', [{ to: addrs.contract }, 'latest']), word(0x2a));
    });

    it('--dump-state writes plain Anvil JSON at shutdown, which `anvil --load-state` starts from', async () => {
      assert.equal(await source.stop('SIGTERM'), 0);
      assert.ok(existsSync(dumpFile), 'dump file written');
      const json = JSON.parse(readFileSync(dumpFile, 'utf8'));
      assert.equal(json.accounts[addrs.contract].code, '0x' + RUNTIME);
      const anvil = await startAnvil(['--load-state', dumpFile]);
      anvils.push(anvil);
      assert.deepEqual(await snapshotOf(anvil.url, addrs), expected);
    });

    it('bad input to anvil_loadState is a clear -32602 error and changes nothing', async () => {
      const n = nodes[1]!;
      const head = await rpcResult(n.http, 'eth_blockNumber');
      const gz = (o: unknown) => '0x' + Buffer.from(JSON.stringify(o)).toString('hex');
      for (const [params, message] of [
        [['0x1f8b00'], 'invalid state: not gzip'],
        [['0x7b7b'], 'invalid state: not JSON'],
        [[gz({ block: null })], 'invalid state: missing "accounts" object'],
        [[gz({ accounts: { '0x12': {} } })], 'invalid state: account address 0x12'],
        [[gz({ accounts: { [addrs.odd]: { balance: 'lots' } } })], `invalid state: bad balance of ${addrs.odd}`],
      ] as const) {
        const res = await rpc(n.http, 'anvil_loadState', [...params]);
        assert.equal(res.error?.code, -32602, message);
        assert.equal(res.error?.message, message);
      }
      assert.equal((await rpc(n.http, 'anvil_loadState', [])).error?.code, -32602);
      assert.equal(await rpcResult(n.http, 'eth_blockNumber'), head, 'no block made');
    });
  },
);
