// eth_call's wall-time bound (json-rpc.evm-timeout): an endless loop ends with geth's "execution aborted" error and
// the node keeps serving; a memory-heavy but finite call is not slowed by the bound.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { initHome } from '../../src/node/home.ts';
import { type KestrelNode, rpc, startNode } from '../helpers/node.ts';

// Create-context code (no deployment needed): JUMPDEST; PUSH1 0; JUMP — loops until the gas cap or the deadline.
const ENDLESS = '0x5b600056';
// MSTORE at offset 0x0fffe0 (≈1 MiB of memory), then 5000 iterations of a JUMPI loop, then STOP.
const MEMORY_LOOP = '0x6001620fffe052611388' + '5b6001900380600a5700';

describe('eth_call wall-time bound', { timeout: 90_000 }, () => {
  let node: KestrelNode;

  before(async () => {
    const home = join(mkdtempSync(join(tmpdir(), 'kestrel-calllimits-')), 'home');
    initHome(home, { chainId: 'kestrel_9000-1', dev: true });
    const toml = join(home, 'config', 'app.toml');
    // No gas cap: on Kestrel's engine the default 25M gas runs out in well under 0.5 s (the loop then ends with
    // "out of gas", as on geth), so only an uncapped call is endless and meets the deadline.
    const text = readFileSync(toml, 'utf8')
      .replace(/^evm-timeout = ".*"$/m, 'evm-timeout = "500ms"')
      .replace(/^gas-cap = \d+$/m, 'gas-cap = 0');
    writeFileSync(toml, text);
    node = await startNode({ home });
  });
  after(async () => node?.dispose());

  it('ends an endless loop with "execution aborted (timeout = 0.5s)" and keeps serving', async () => {
    const t0 = Date.now();
    const res = await rpc(node.http, 'eth_call', [{ data: ENDLESS }, 'latest']);
    const elapsed = Date.now() - t0;
    assert.equal(res.error?.code, -32000);
    assert.equal(res.error?.message, 'execution aborted (timeout = 0.5s)');
    assert.ok(elapsed < 5000, `aborted after ${elapsed} ms`);
    assert.equal((await rpc(node.http, 'eth_blockNumber', [])).error, undefined);
  });

  it('runs a memory-heavy finite loop to completion within the bound', async () => {
    const res = await rpc(node.http, 'eth_call', [{ data: MEMORY_LOOP }, 'latest']);
    assert.equal(res.error, undefined, JSON.stringify(res.error));
    assert.equal(res.result, '0x');
  });
});
