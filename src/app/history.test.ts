// EIP-2935 in the app: each block from Prague on first stores its parent's hash in the history contract, which a
// new genesis holds; a chain whose genesis has no such contract (every home made before) is left exactly as it was.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { bytesToHex, hexToBytes } from '../primitives/hex.ts';
import { DEV_GENESIS, DEV_GENESIS_DOC, openTestApp } from '../../test/helpers/app.ts';
import { createChainCommon } from './evm/common.ts';
import { HISTORY_STORAGE_CODE, makeGenesisDoc, parseGenesis } from './genesis.ts';

const HISTORY = hexToBytes('0x0000f90827f1c53a10cb7a02335b175320002935');
const dirs: string[] = [];

async function open(over: Partial<typeof DEV_GENESIS>) {
  const dir = mkdtempSync(join(tmpdir(), 'kestrel-history-'));
  dirs.push(dir);
  const fork = over.fork ?? DEV_GENESIS.fork;
  return openTestApp(join(dir, 'db'), () => ({
    genesis: { ...DEV_GENESIS, ...over },
    common: createChainCommon(9000n, undefined, fork),
  }));
}

describe('EIP-2935 history contract', () => {
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test('a new genesis holds the contract (nonce 1, the EIP code) on Prague and Osaka, not on Cancun', () => {
    assert.deepEqual(DEV_GENESIS_DOC.app_state.evm.accounts, [
      { address: '0x0000f90827f1c53a10cb7a02335b175320002935', code: HISTORY_STORAGE_CODE, nonce: '1' },
    ]);
    const doc = (fork: 'Cancun' | 'Prague') =>
      makeGenesisDoc({
        chainId: 'kestrel_9000-1',
        evmDenom: 'akestrel',
        prefix: 'kestrel',
        dev: false,
        now: new Date(0),
        fork,
      });
    assert.deepEqual(doc('Cancun').app_state.evm.accounts, []);
    assert.deepEqual(doc('Prague').app_state.evm.accounts, DEV_GENESIS_DOC.app_state.evm.accounts);
    const parsed = parseGenesis(DEV_GENESIS_DOC, 'kestrel').accounts;
    assert.equal(parsed.length, 1);
    assert.equal(parsed[0]!.nonce, 1n);
    assert.equal(bytesToHex(parsed[0]!.code!), HISTORY_STORAGE_CODE);
  });

  test('with the contract, a block stores its parent hash; eth_getCode finds the code', async () => {
    const t = await open({});
    const genesis = t.app.head;
    assert.equal(bytesToHex(t.state.readView(genesis.header.stateRoot).code(HISTORY)), HISTORY_STORAGE_CODE);
    for (let i = 0; i < 3; i++) {
      const parent = t.app.head;
      await t.app.finalizeBlock({ txs: [], time: parent.header.timestamp + 1n });
      const c = await t.app.commit();
      const slot = new Uint8Array(32);
      slot[31] = Number(parent.number % 8191n);
      assert.equal(
        bytesToHex(t.state.readView(c.block.header.stateRoot).storage(HISTORY, slot)),
        bytesToHex(parent.hash),
      );
    }
    await t.kv.close();
  });

  test('a Prague genesis without it (a home made before): empty blocks keep the state root, as they always did', async () => {
    const t = await open({ fork: 'Prague', accounts: [] });
    for (let i = 0; i < 3; i++) {
      const parent = t.app.head;
      await t.app.finalizeBlock({ txs: [], time: parent.header.timestamp + 1n });
      const c = await t.app.commit();
      assert.deepEqual(c.block.header.stateRoot, parent.header.stateRoot);
      assert.equal(t.state.readView(c.block.header.stateRoot).account(HISTORY), undefined);
    }
    await t.kv.close();
  });
});
