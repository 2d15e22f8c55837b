// Key-store interoperability against a real kestreld: a file written by ethers' Wallet.encrypt copied into
// <home>/keystore is picked up and unlocks; a file Kestrel writes decrypts with ethers; a corrupt file is reported and
// skipped; web3.js' personal API end to end; `kestreld keys list|add|import`; the standard scrypt cost.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { Wallet, hexlify, toUtf8Bytes, verifyMessage } from 'ethers';
import { HttpProvider, Web3 } from 'web3';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { authToken as tokenOf, privateRpc } from '../helpers/privateRpc.ts';
import {
  type KestrelNode,
  type RpcResponse,
  REPO_ROOT,
  printLogsOnFailure,
  rpc,
  startNode,
  waitFor,
  waitForReceipt,
} from '../helpers/node.ts';

/** One JSON-RPC request over HTTP with the bearer token. */
const call = (n: KestrelNode, method: string, params: unknown[] = []): Promise<RpcResponse<any>> =>
  privateRpc(n, method, params);

async function ok(n: KestrelNode, method: string, params: unknown[] = []): Promise<any> {
  const r = await call(n, method, params);
  if (r.error) throw new Error(`${method} failed: ${JSON.stringify(r.error)}`);
  return r.result;
}

function keyFileOf(n: KestrelNode, address: string): string {
  const dir = join(n.home, 'keystore');
  const f = readdirSync(dir).find((x) => x.endsWith(address.toLowerCase().slice(2)));
  assert.ok(f, `no key file for ${address} in ${dir}`);
  return join(dir, f);
}

async function cli(args: string[], input?: string): Promise<string> {
  const child = execFile(process.execPath, ['bin/kestreld.js', ...args], { cwd: REPO_ROOT });
  if (input !== undefined) child.stdin!.end(input);
  else child.stdin!.end();
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const code = await new Promise<number | null>((res) => child.on('exit', res));
  if (code !== 0) throw new Error(`kestreld ${args.join(' ')} exited ${code}: ${err}`);
  return out.trim();
}

describe('key files: interop with ethers, corrupt files, CLI', { timeout: 120_000 }, () => {
  let node: KestrelNode;
  before(async () => {
    node = await startNode();
  });
  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    await node?.dispose();
  });

  it('an ethers Wallet.encrypt file copied into the key store shows up, unlocks and signs', async () => {
    const w = Wallet.createRandom();
    const json = await w.encrypt('ethers-pw'); // ethers' default scrypt cost (n=131072), "Crypto" with a capital C
    assert.ok('Crypto' in JSON.parse(json));
    writeFileSync(
      join(node.home, 'keystore', `UTC--2024-01-01T00-00-00.000000000Z--${w.address.slice(2).toLowerCase()}`),
      json,
    );
    const addr = w.address.toLowerCase();
    await waitFor(
      'the copied key in personal_listAccounts',
      async () => ((await ok(node, 'personal_listAccounts')) as string[]).includes(addr) || undefined,
      10_000,
    );
    assert.ok(((await rpc(node.http, 'eth_accounts')).result as string[]).includes(addr));
    assert.equal(
      (await call(node, 'personal_unlockAccount', [addr, 'wrong', 5])).error?.message,
      'could not decrypt key with given password',
    );
    assert.equal(await ok(node, 'personal_unlockAccount', [addr, 'ethers-pw', 30]), true);
    const sig = await ok(node, 'eth_sign', [addr, hexlify(toUtf8Bytes('copied'))]);
    assert.equal(sig, await w.signMessage('copied'));
  });

  it('a file Kestrel writes is mode 0600, named UTC--<time>--<address>, and decrypts with ethers', async () => {
    const addr: string = await ok(node, 'personal_newAccount', ['kestrel-pw']);
    const file = keyFileOf(node, addr);
    assert.match(file, /\/UTC--\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{9}Z--[0-9a-f]{40}$/);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const json = readFileSync(file, 'utf8');
    const parsed = JSON.parse(json);
    assert.equal(parsed.version, 3);
    assert.equal(parsed.crypto.kdf, 'scrypt');
    assert.equal(parsed.crypto.cipher, 'aes-128-ctr');
    const w = await Wallet.fromEncryptedJson(json, 'kestrel-pw');
    assert.equal(w.address.toLowerCase(), addr);
    await assert.rejects(Wallet.fromEncryptedJson(json, 'nope'), /incorrect password/);
  });

  it("a dev account's file (empty passphrase, least scrypt cost) decrypts with ethers to the well-known key", async () => {
    const dev = DEV_ACCOUNTS[2]!;
    const json = readFileSync(keyFileOf(node, dev.address), 'utf8');
    assert.equal(JSON.parse(json).crypto.kdfparams.n, 2);
    const w = await Wallet.fromEncryptedJson(json, '');
    assert.equal(w.privateKey, dev.privateKey);
    assert.equal(w.address.toLowerCase(), dev.address.toLowerCase());
  });

  it('a corrupt file is reported and skipped, never fatal', async () => {
    const before = (await ok(node, 'personal_listAccounts')) as string[];
    writeFileSync(
      join(node.home, 'keystore', 'UTC--2020-01-01T00-00-00.000000000Z--' + 'ab'.repeat(20)),
      '{"version":3,"crypto":',
    );
    writeFileSync(
      join(node.home, 'keystore', 'UTC--2020-01-01T00-00-01.000000000Z--' + 'cd'.repeat(20)),
      JSON.stringify({ version: 2 }),
    );
    // Reported when the store next scans its directory (any call that lists or looks up accounts).
    await waitFor(
      'the skip report',
      async () => {
        await ok(node, 'personal_listAccounts');
        return /keystore: skipping .*abababab/.test(node.logs()) ? true : undefined;
      },
      10_000,
    );
    assert.match(node.logs(), /keystore: skipping .*cdcdcdcd.*version not supported: 2/);
    assert.deepEqual(await ok(node, 'personal_listAccounts'), before);
    assert.equal((await rpc(node.http, 'eth_chainId')).result, '0x2328');
  });

  it('kestreld keys add/import/list work on the same key store, also while the node runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kestrel-keys-'));
    try {
      const pwFile = join(dir, 'pw');
      writeFileSync(pwFile, 'cli-pw\nignored second line\n');
      const added = await cli(['keys', 'add', '--home', node.home, '--password-file', pwFile]);
      assert.match(added, /^0x[0-9a-f]{40}$/);
      const w = Wallet.createRandom();
      const keyFile = join(dir, 'key.hex');
      writeFileSync(keyFile, w.privateKey.slice(2) + '\n');
      const imported = await cli(['keys', 'import', keyFile, '--home', node.home], 'stdin-pw\n');
      assert.equal(imported, w.address.toLowerCase());
      await assert.rejects(cli(['keys', 'import', keyFile, '--home', node.home], 'x\n'), /account already exists/);
      const listed = JSON.parse(await cli(['keys', 'list', '--home', node.home, '--output', 'json'])) as Array<{
        address: string;
        file: string;
      }>;
      // File-name (creation time) order; the dev files were written in account order.
      const devSet = new Set(DEV_ACCOUNTS.map((a) => a.address.toLowerCase()));
      assert.deepEqual(
        listed.map((x) => x.address).filter((a) => devSet.has(a)),
        DEV_ACCOUNTS.map((a) => a.address.toLowerCase()),
      );
      assert.ok(listed.some((x) => x.address === added) && listed.some((x) => x.address === imported));
      const text = await cli(['keys', 'list', '--home', node.home]);
      assert.match(text, /^#0 {2}0x[0-9a-f]{40} {2}keystore:\/\/\/.*\/keystore\/UTC--/m);
      assert.equal(text.split('\n').length, listed.length);
      // The running node sees both and unlocks them with the passphrases given to the CLI.
      await waitFor(
        'CLI keys in the node',
        async () => {
          const accts = (await ok(node, 'personal_listAccounts')) as string[];
          return accts.includes(added) && accts.includes(imported) ? true : undefined;
        },
        10_000,
      );
      assert.equal(await ok(node, 'personal_unlockAccount', [added, 'cli-pw', 5]), true);
      assert.equal(await ok(node, 'personal_unlockAccount', [imported, 'stdin-pw', 5]), true);
      // Without --dev the CLI writes at the standard cost (the node itself, started with --dev, writes light files).
      assert.equal(
        JSON.parse(readFileSync(keyFileOf(node, added), 'utf8')).crypto.kdfparams.n,
        262144,
        'a home without [keystore] settings gets the standard cost outside --dev',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('web3.js personal API against kestreld', { timeout: 120_000 }, () => {
  let node: KestrelNode;
  let web3: Web3;
  before(async () => {
    node = await startNode();
    web3 = new Web3(
      new HttpProvider(node.http, { providerOptions: { headers: { Authorization: `Bearer ${tokenOf(node)}` } } }),
    );
  });
  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    await node?.dispose();
  });

  it('newAccount, getAccounts, unlockAccount, sign, ecRecover, sendTransaction, lockAccount, importRawKey', async () => {
    const p = web3.eth.personal;
    const addr = await p.newAccount('w3-pw');
    assert.match(addr, /^0x[0-9a-fA-F]{40}$/);
    assert.notEqual(addr, addr.toLowerCase(), 'web3 checksums the address');
    const accounts = await p.getAccounts();
    assert.equal(accounts[0], DEV_ACCOUNTS[0]!.address);
    assert.ok(accounts.includes(addr));
    await assert.rejects(p.unlockAccount(addr, 'bad', 10), /could not decrypt key with given password/);
    assert.equal(await p.unlockAccount(addr, 'w3-pw', 60), true);
    const sig = await p.sign('web3 message', addr, 'w3-pw');
    assert.equal(verifyMessage('web3 message', sig), addr);
    assert.equal((await p.ecRecover('web3 message', sig)).toLowerCase(), addr.toLowerCase());
    assert.equal(await p.lockAccount(addr), true);
    // Fund it from an unlocked dev account through eth_sendTransaction, then send with the passphrase.
    const fund = await web3.eth.sendTransaction({
      from: DEV_ACCOUNTS[3]!.address,
      to: addr,
      value: 10n ** 18n,
      gas: 21000,
    });
    assert.equal(fund.status, 1n);
    const hash = await p.sendTransaction(
      { from: addr, to: DEV_ACCOUNTS[3]!.address, value: 1000n, gas: 21000 },
      'w3-pw',
    );
    const receipt = await waitForReceipt(node.http, hash);
    assert.equal(receipt.status, '0x1');
    assert.equal(receipt.from, addr.toLowerCase());
    const key = Wallet.createRandom();
    assert.equal((await p.importRawKey(key.privateKey.slice(2), 'imp')).toLowerCase(), key.address.toLowerCase());
    await assert.rejects(p.importRawKey(key.privateKey.slice(2), 'imp'), /account already exists/);
    const signed = (await p.signTransaction(
      { from: addr, to: DEV_ACCOUNTS[3]!.address, value: 1n, gas: 21000, gasPrice: 10n ** 9n, nonce: 1 },
      'w3-pw',
    )) as unknown as { raw: string; tx: { nonce: string } };
    assert.match(signed.raw, /^0x[0-9a-f]+$/);
    assert.equal(signed.tx.nonce, '0x1');
  });
});

describe('standard scrypt cost (n=262144)', { timeout: 120_000 }, () => {
  let node: KestrelNode;
  before(async () => {
    node = await startNode({ args: ['--keystore.scrypt-n', '262144', '--keystore.scrypt-p', '1'] });
  });
  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    await node?.dispose();
  });

  it("new files use geth's standard cost; unlock at that cost works (time reported)", async (t) => {
    let t0 = performance.now();
    const addr: string = await ok(node, 'personal_newAccount', ['std-pw']);
    const create = performance.now() - t0;
    const params = JSON.parse(readFileSync(keyFileOf(node, addr), 'utf8')).crypto.kdfparams;
    assert.deepEqual(
      { n: params.n, r: params.r, p: params.p, dklen: params.dklen },
      { n: 262144, r: 8, p: 1, dklen: 32 },
    );
    t0 = performance.now();
    assert.equal(await ok(node, 'personal_unlockAccount', [addr, 'std-pw', 60]), true);
    const unlock = performance.now() - t0;
    t.diagnostic(
      `standard cost: personal_newAccount ${create.toFixed(0)} ms, personal_unlockAccount ${unlock.toFixed(0)} ms`,
    );
    // The event loop keeps serving while scrypt runs in the thread pool.
    t0 = performance.now();
    const [, chainId] = await Promise.all([
      ok(node, 'personal_unlockAccount', [addr, 'std-pw', 60]),
      rpc(node.http, 'eth_chainId'),
    ]);
    assert.equal(chainId.result, '0x2328');
    await ok(node, 'eth_sign', [addr, '0x00']);
  });
});
