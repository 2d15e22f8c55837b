// eth_call reuses VMs and archive reads per state root: after a block that changes a storage slot a call at
// "latest" must see the new word, and a call pinned to an older block the old one, however the calls interleave.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { initHome } from '../../src/node/home.ts';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { type KestrelNode, rpcResult, startNode } from '../helpers/node.ts';
import { sendTx } from '../helpers/tx.ts';

// Runtime: no calldata → return the word in slot 0; calldata → store its first word in slot 0.
//   CALLDATASIZE ISZERO PUSH1 0x0c JUMPI PUSH1 0 CALLDATALOAD PUSH1 0 SSTORE STOP
//   JUMPDEST PUSH1 0 SLOAD PUSH1 0 MSTORE PUSH1 0x20 PUSH1 0 RETURN
const RUNTIME = '3615600c57600035600055005b60005460005260206000f3';
// Init: CODECOPY the 24-byte runtime (at offset 11) to memory and return it.
const INIT = '0x601880600b6000396000f3' + RUNTIME;
const word = (n: number): string => '0x' + n.toString(16).padStart(64, '0');

describe('eth_call state after new blocks', { timeout: 120_000 }, () => {
  let node: KestrelNode;
  let base: string;
  let store: string;
  const key = DEV_ACCOUNTS[1]!.privateKey;

  const read = (block: string): Promise<string> => rpcResult<string>(node.http, 'eth_call', [{ to: store }, block]);
  const write = async (n: number): Promise<string> =>
    (await sendTx(node.http, key, { to: store, data: word(n), gas: 100_000n })).receipt.blockNumber;

  before(async () => {
    // No gas cap: a call's gas above the block gas limit then raises its block's gas limit (geth's rule).
    base = mkdtempSync(join(tmpdir(), 'kestrel-callstate-'));
    const home = join(base, 'home');
    initHome(home, { chainId: 'kestrel_9000-1', dev: true });
    const toml = join(home, 'config', 'app.toml');
    writeFileSync(toml, readFileSync(toml, 'utf8').replace(/^gas-cap = \d+$/m, 'gas-cap = 0'));
    node = await startNode({ home });
    const { receipt } = await sendTx(node.http, key, { to: null, data: INIT, gas: 200_000n });
    assert.equal(receipt.status, '0x1');
    store = receipt.contractAddress;
  });
  after(async () => {
    await node?.dispose();
    rmSync(base, { recursive: true, force: true });
  });

  it("sees each block's slot value at latest and at pinned heights", async () => {
    assert.equal(await read('latest'), word(0));
    const heights: Array<[string, number]> = [];
    for (const n of [5, 7, 0, 9]) {
      // Warm every pooled context on the current head first, so a stale shared read would be served.
      await Promise.all(Array.from({ length: 6 }, () => read('latest')));
      heights.push([await write(n), n]);
      assert.equal(await read('latest'), word(n), `latest after writing ${n}`);
      // Older heights, interleaved with the head: each answers with its own block's word.
      for (const [h, v] of heights) {
        const [atH, latest] = await Promise.all([read(h), read('latest')]);
        assert.equal(atH, word(v), `block ${BigInt(h)} holds ${v}`);
        assert.equal(latest, word(n));
      }
    }
  });

  it('runs each call in its own block context (number, gas limit, base fee), however calls alternate', async () => {
    // Creation code returning one block-context word: NUMBER / GASLIMIT / BASEFEE, MSTORE at 0, RETURN 32 bytes.
    const ret = (op: string): string => `0x${op}60005260206000f3`;
    const ask = async (op: string, block: string, extra: Record<string, string> = {}): Promise<bigint> =>
      BigInt(await rpcResult<string>(node.http, 'eth_call', [{ data: ret(op), ...extra }, block]));
    const head = await rpcResult<{ number: string; gasLimit: string; baseFeePerGas: string }>(
      node.http,
      'eth_getBlockByNumber',
      ['latest', false],
    );
    const top = BigInt(head.number);
    assert.ok(top >= 3n);
    for (const n of [top, 1n, top, 2n, top - 1n, top])
      assert.equal(await ask('43', `0x${n.toString(16)}`), n, `NUMBER at ${n}`);
    assert.equal(await ask('43', 'latest'), top);
    const limit = BigInt(head.gasLimit);
    const hex = (v: bigint): string => `0x${v.toString(16)}`;
    for (const gas of [limit + 5000n, 100_000n, limit + 7000n, limit + 7000n, 200_000n]) {
      assert.equal(await ask('45', 'latest', { gas: hex(gas) }), gas > limit ? gas : limit, `GASLIMIT with gas ${gas}`);
    }
    const baseFee = BigInt(head.baseFeePerGas);
    const from = DEV_ACCOUNTS[2]!.address;
    for (const priced of [false, true, true, false]) {
      const extra: Record<string, string> = priced
        ? { from, gasPrice: hex(baseFee * 2n + 1n), gas: '0x30000' }
        : { from, gas: '0x30000' };
      assert.equal(await ask('48', 'latest', extra), priced ? baseFee : 0n, `BASEFEE, priced ${priced}`);
    }
  });

  it('estimates gas against the state the call sees (a reverted probe leaves no trace)', async () => {
    const before = await read('latest');
    const gas = BigInt(await rpcResult<string>(node.http, 'eth_estimateGas', [{ to: store, data: word(123) }]));
    assert.ok(gas > 21_000n);
    // The estimation's probes wrote slot 0 in their checkpoints; none of that may leak into later calls.
    assert.equal(await read('latest'), before);
    assert.equal(await rpcResult<string>(node.http, 'eth_call', [{ to: store, data: word(55) }, 'latest']), '0x');
    assert.equal(await read('latest'), before);
  });

  it("leaves a call's writes and warm slots out of the next call at the same state", async () => {
    // Plain calls at one root share a WorldState whose journal each run reverts: a write, a value transfer or a
    // warmed slot that leaked would show in the next call's answer, balance or gas.
    const from = DEV_ACCOUNTS[3]!.address;
    // Creation code reading the store's balance in the call's own world: PUSH20 store BALANCE, MSTORE, RETURN 32.
    const balance = (): Promise<string> =>
      rpcResult<string>(node.http, 'eth_call', [{ data: `0x73${store.slice(2)}3160005260206000f3` }, 'latest']);
    const estimate = (): Promise<string> => rpcResult<string>(node.http, 'eth_estimateGas', [{ to: store }]);
    const before = await read('latest');
    const storeBalance = await balance();
    const gas = await estimate();
    const list = await rpcResult<unknown>(node.http, 'eth_createAccessList', [{ to: store }, 'latest']);
    for (let i = 0; i < 4; i++) {
      const call = { from, to: store, data: word(1000 + i), value: '0x1' };
      assert.equal(await rpcResult<string>(node.http, 'eth_call', [call, 'latest']), '0x');
      assert.equal(await read('latest'), before, `slot 0 after call ${i}`);
      // A cold SLOAD costs 2,000 gas more than a warm one: a slot left warm would lower the estimate.
      assert.equal(await estimate(), gas, `estimate after call ${i}`);
      assert.deepEqual(await rpcResult<unknown>(node.http, 'eth_createAccessList', [{ to: store }, 'latest']), list);
    }
    // The value each call sent was never credited.
    assert.equal(await balance(), storeBalance);
    assert.equal(await rpcResult<string>(node.http, 'eth_call', [{ to: store }, 'latest']), before);
  });
});
