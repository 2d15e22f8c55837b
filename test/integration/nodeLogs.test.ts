// Structured logs of a whole run: every line (JSON or text) has a level, a time and a module, --log.level filters,
// and no secret — the bearer token, a passphrase, an imported private key, the validator key — appears anywhere,
// whatever the run did with them (right and wrong passphrases, bad tokens, signing, a failed import).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { freePort, REPO_ROOT, waitFor } from '../helpers/node.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Runs a dev node with `flags` through `work(http, token)`, stops it with SIGTERM and returns everything it wrote. */
async function run(
  flags: string[],
  work: (http: string, token: string, home: string) => Promise<void>,
): Promise<{ out: string; home: string }> {
  const base = mkdtempSync(join(tmpdir(), 'kestrel-logs-'));
  dirs.push(base);
  const home = join(base, 'home');
  const port = await freePort();
  const args = [
    'bin/kestreld.js',
    'start',
    '--dev',
    '--home',
    home,
    '--json-rpc.address',
    `127.0.0.1:${port}`,
    '--json-rpc.ws-address',
    '127.0.0.1:0',
    '--grpc.address',
    '127.0.0.1:0',
    '--rpc.laddr',
    'tcp://127.0.0.1:0',
    ...flags,
  ];
  const p = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  p.stdout.on('data', (d: Buffer) => (out += d.toString()));
  p.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => p.on('exit', r));
  try {
    const http = `http://127.0.0.1:${port}`;
    await waitFor(
      'eth_blockNumber',
      async () => {
        if (p.exitCode !== null) throw new Error(`kestreld exited: ${out}`);
        return (await call(http, 'eth_blockNumber', []).catch(() => undefined))?.result;
      },
      60_000,
    );
    const token = readFileSync(join(home, 'config', 'auth.token'), 'utf8').trim();
    await work(http, token, home);
  } finally {
    p.kill('SIGTERM');
  }
  assert.equal(await exited, 0, out.slice(-3000));
  return { out, home };
}

async function call(
  http: string,
  method: string,
  params: unknown[],
  token?: string,
): Promise<{ result?: unknown; error?: { message: string } }> {
  const res = await fetch(http, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result?: unknown; error?: { message: string } };
}

describe('structured logs', { timeout: 180_000 }, () => {
  it('JSON: every line has level, time and module; no token, passphrase or key appears in the whole run', async () => {
    const passphrase = 'correct horse battery staple 7781';
    const key = '0x' + '4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';
    let token = '';
    const { out, home } = await run(['--log.format', 'json', '--log.level', 'debug'], async (http, t) => {
      token = t;
      const imported = await call(http, 'personal_importRawKey', [key.slice(2), passphrase], t);
      const addr = imported.result as string;
      assert.match(addr, /^0x[0-9a-f]{40}$/);
      assert.match(
        (await call(http, 'personal_importRawKey', [key.slice(2), passphrase], t)).error!.message,
        /account already exists/,
      );
      assert.match(
        (await call(http, 'personal_importRawKey', ['zz' + key.slice(4), passphrase], t)).error!.message,
        /invalid hex/,
      );
      assert.match(
        (await call(http, 'personal_unlockAccount', [addr, passphrase + 'x', 1], t)).error!.message,
        /could not decrypt/,
      );
      assert.equal((await call(http, 'personal_unlockAccount', [addr, passphrase, 1], t)).result, true);
      await call(http, 'personal_sign', ['0x1234', addr, passphrase], t);
      // Unfunded: the send fails after the key was decrypted, and its error is logged nowhere with the key.
      await call(
        http,
        'personal_sendTransaction',
        [{ from: addr, to: DEV_ACCOUNTS[1]!.address, value: '0x1' }, passphrase],
        t,
      );
      await call(http, 'personal_listAccounts', [], t + 'ff'); // a wrong token
      await call(http, 'personal_listAccounts', [], t);
      await call(http, 'miner_setGasPrice', ['0x1'], t);
      await call(http, 'eth_sendTransaction', [{ from: DEV_ACCOUNTS[0]!.address, to: addr, value: '0x10' }]);
    });
    const lines = out.split('\n').filter((l) => l !== '');
    assert.ok(lines.length >= 8, out);
    for (const l of lines) {
      let obj: Record<string, unknown>;
      try {
        obj = JSON.parse(l);
      } catch {
        assert.fail(`not a JSON line: ${l}`);
      }
      assert.ok(['debug', 'info', 'warn', 'error'].includes(obj.level as string), l);
      assert.ok(!Number.isNaN(Date.parse(obj.time as string)) && /Z$/.test(obj.time as string), l);
      assert.ok(typeof obj.module === 'string' && obj.module !== '', l);
      assert.equal(typeof obj.msg, 'string', l);
    }
    assert.ok(
      lines.some((l) => JSON.parse(l).module === 'miner'),
      'miner_setGasPrice logged under its module',
    );
    const validatorKey = (
      JSON.parse(readFileSync(join(home, 'config', 'priv_validator_key.json'), 'utf8')) as { priv_key: string }
    ).priv_key;
    const lower = out.toLowerCase();
    for (const [what, secret] of [
      ['token', token],
      ['passphrase', passphrase],
      ['imported key', key.slice(2)],
      ['validator key', validatorKey.replace(/^0x/, '')],
    ]) {
      assert.ok(!lower.includes(secret!.toLowerCase()), `the ${what} appears in the log`);
    }
  });

  it('text at --log.level warn: only warnings and errors, each "<time> <LEVEL> [module] message"', async () => {
    const { out } = await run(
      ['--log.format', 'text', '--log.level', 'warn', '--minimum-gas-prices', '0akestrel'],
      async (http, t) => {
        await call(http, 'miner_setGasPrice', ['0x1'], t); // an info line (hidden) and a warning: the flag overrides app.toml
        await call(http, 'eth_blockNumber', []);
      },
    );
    const lines = out.split('\n').filter((l) => l !== '' && !l.startsWith('    '));
    for (const l of lines) assert.match(l, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (WARN |ERROR) \[[\w.-]+\] /, l);
    assert.ok(!/Please RESTART/.test(out));
    assert.ok(
      lines.some((l) =>
        / WARN {2}\[miner\] miner_setGasPrice: this node was started with --minimum-gas-prices/.test(l),
      ),
      out,
    );
  });
});
