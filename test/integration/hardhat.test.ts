// Hardhat 2 tooling against a real `kestreld start --dev` (test/fixtures/hardhat is the user's project):
// Hardhat Ignition with its default config deploys a two-contract module quickly (it asks hardhat_getAutomine and
// waits for one confirmation), and a mocha test using @nomicfoundation/hardhat-network-helpers passes unchanged.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { type KestrelNode, printLogsOnFailure, REPO_ROOT, rpcResult, startNode } from '../helpers/node.ts';
import { compileSource } from '../helpers/solc.ts';

const PROJECT = join(REPO_ROOT, 'test', 'fixtures', 'hardhat');
/** Where Ignition records deployments by default (git-ignored; each run starts on a fresh chain). */
const DEPLOYMENTS = join(PROJECT, 'ignition', 'deployments');
const SOURCE = `// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;
contract Token {
    mapping(address => uint256) public balanceOf;
    constructor(uint256 supply) { balanceOf[msg.sender] = supply; }
}
contract Vault {
    Token public immutable token;
    constructor(Token t) { token = t; }
}`;

function hardhat(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; out: string; ms: number }> {
  const t0 = performance.now();
  return new Promise((res, rej) => {
    const p = spawn(
      process.execPath,
      [join(REPO_ROOT, 'node_modules', 'hardhat', 'internal', 'cli', 'bootstrap.js'), ...args],
      {
        cwd: PROJECT,
        env: { ...process.env, ...env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true', FORCE_COLOR: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => p.kill('SIGKILL'), 120_000);
    p.on('error', rej);
    p.on('exit', (code) => {
      clearTimeout(timer);
      res({ code, out, ms: performance.now() - t0 });
    });
  });
}

describe('Hardhat 2: Ignition and hardhat-network-helpers', { timeout: 300_000 }, () => {
  let node: KestrelNode;
  let out: string;
  let env: Record<string, string>;

  before(async () => {
    node = await startNode();
    out = mkdtempSync(join(tmpdir(), 'kestrel-hardhat-'));
    mkdirSync(join(out, 'contracts'));
    const c = compileSource(SOURCE, 'TwoContracts.sol');
    const artifact = (name: string) => ({
      _format: 'hh-sol-artifact-1',
      contractName: name,
      sourceName: 'contracts/TwoContracts.sol',
      abi: c[name]!.abi,
      bytecode: c[name]!.bytecode,
      deployedBytecode: c[name]!.deployedBytecode,
      linkReferences: {},
      deployedLinkReferences: {},
    });
    writeFileSync(join(out, 'artifacts.json'), JSON.stringify({ Token: artifact('Token'), Vault: artifact('Vault') }));
    env = { KESTREL_URL: node.http, KESTREL_HH_OUT: out };
    rmSync(DEPLOYMENTS, { recursive: true, force: true });
  });
  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    await node?.dispose();
    if (out) rmSync(out, { recursive: true, force: true });
    rmSync(DEPLOYMENTS, { recursive: true, force: true });
  });

  it('Ignition (default config) deploys a two-contract module without waiting for confirmations', async () => {
    // The one non-default: the answer to Ignition's interactive "Confirm deploy to network kestrel (9000)?".
    const r = await hardhat(['ignition', 'deploy', 'ignition/modules/TwoContracts.cjs', '--network', 'kestrel'], {
      ...env,
      HARDHAT_IGNITION_CONFIRM_DEPLOYMENT: 'false',
    });
    assert.equal(r.code, 0, r.out);
    console.log(`# hardhat ignition deploy (process start to exit): ${r.ms.toFixed(0)} ms`);
    const vault = /TwoContracts#Vault - (0x[0-9a-fA-F]{40})/.exec(r.out)?.[1];
    const token = /TwoContracts#Token - (0x[0-9a-fA-F]{40})/.exec(r.out)?.[1];
    assert.ok(vault && token, r.out);
    // Vault.token() returns the Token's address.
    const got = await rpcResult<string>(node.http, 'eth_call', [{ to: vault, data: '0xfc0c546a' }, 'latest']);
    assert.equal(`0x${got.slice(26)}`, token.toLowerCase());
    // Target < 5 s (3.6 s measured here, Hardhat's own startup included). The assertion is on the stall that the
    // default config used to hit (waiting for 5 confirmations that instant mode never makes), with room for a
    // loaded CI machine.
    assert.ok(r.ms < 15_000, `ignition deploy took ${r.ms.toFixed(0)} ms`);
  });

  it('a mocha test using hardhat-network-helpers passes unchanged', async () => {
    const r = await hardhat(['test', 'test/networkHelpers.test.cjs', '--network', 'kestrel'], env);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /5 passing/, r.out);
  });
});
