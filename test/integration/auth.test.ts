// Authentication of the private namespaces (personal_, miner_) against a real kestreld: the bearer token over
// HTTP and on the WebSocket upgrade; no token, a wrong token, a token in the query string; batches where only the
// private item fails; --json-rpc.auth-token-file and app.toml's auth-token-file; `kestreld auth token`.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, afterEach, before, describe, it } from 'node:test';
import { wsExchange } from '../helpers/ws.ts';
import { type KestrelNode, REPO_ROOT, post, printLogsOnFailure, startNode } from '../helpers/node.ts';

const run = promisify(execFile);
const UNAUTHORIZED = { code: 4100, message: 'unauthorized' };

const tokenOf = (n: KestrelNode) => readFileSync(join(n.home, 'config', 'auth.token'), 'utf8').trim();

function body(method: string, params: unknown[] = [], id: number = 1) {
  return { jsonrpc: '2.0', id, method, params };
}

async function httpCall(url: string, payload: unknown, authorization?: string): Promise<any> {
  const res = await post(url, JSON.stringify(payload), {
    headers: authorization === undefined ? {} : { authorization },
  });
  assert.equal(res.status, 200, res.text);
  return res.json;
}

/** One request on a fresh WS connection, optionally with an Authorization header on the upgrade. */
const wsCall = (url: string, payload: unknown, authorization?: string): Promise<any> =>
  wsExchange(url, payload, authorization === undefined ? {} : { authorization });

async function cli(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ['bin/kestreld.js', ...args], { cwd: REPO_ROOT });
  return stdout.trim();
}

describe('private namespaces need the bearer token', { timeout: 90_000 }, () => {
  let node: KestrelNode;
  let token: string;
  before(async () => {
    node = await startNode();
    token = tokenOf(node);
  });
  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    await node?.dispose();
  });

  it('the token is 32 random bytes in hex, in config/auth.token with mode 0600; `kestreld auth token` prints it', async () => {
    assert.match(token, /^[0-9a-f]{64}$/);
    const { statSync } = await import('node:fs');
    assert.equal(statSync(join(node.home, 'config', 'auth.token')).mode & 0o777, 0o600);
    assert.equal(await cli('auth', 'token', '--home', node.home), token);
  });

  for (const transport of ['http', 'ws'] as const) {
    const send = (payload: unknown, authorization?: string, url?: string) =>
      transport === 'http'
        ? httpCall(url ?? node.http, payload, authorization)
        : wsCall(url ?? node.ws, payload, authorization);

    it(`${transport}: without a token a private call is 4100 "unauthorized"; public calls need none`, async () => {
      assert.deepEqual((await send(body('personal_listAccounts'))).error, UNAUTHORIZED);
      assert.deepEqual((await send(body('personal_newAccount', ['x']))).error, UNAUTHORIZED);
      assert.equal((await send(body('eth_chainId'))).result, '0x2328');
      assert.ok(Array.isArray((await send(body('eth_accounts'))).result));
    });

    it(`${transport}: a wrong token (same length or not), another scheme, or a token in the query string is refused`, async () => {
      const flipped = (token[0] === 'a' ? 'b' : 'a') + token.slice(1);
      for (const authorization of [
        `Bearer ${flipped}`,
        `Bearer ${token}0`,
        `Bearer ${token.slice(0, 63)}`,
        `Bearer`,
        `Basic ${token}`,
        token,
        '',
      ]) {
        assert.deepEqual((await send(body('personal_listAccounts'), authorization)).error, UNAUTHORIZED, authorization);
      }
      const base = transport === 'http' ? node.http : node.ws;
      for (const q of [`token=${token}`, `auth=${token}`, `authorization=Bearer%20${token}`, `access_token=${token}`]) {
        assert.deepEqual(
          (await send(body('personal_listAccounts'), undefined, `${base}/?${q}`)).error,
          UNAUTHORIZED,
          q,
        );
      }
    });

    it(`${transport}: the right token (scheme in any case) opens personal_`, async () => {
      for (const authorization of [`Bearer ${token}`, `bearer ${token}`, `BEARER  ${token}`]) {
        const r = await send(body('personal_listAccounts'), authorization);
        assert.equal(r.error, undefined, `${authorization}: ${JSON.stringify(r.error)}`);
        assert.equal(r.result.length >= 10, true);
      }
    });

    it(`${transport}: in a batch without a token only the private items fail`, async () => {
      const batch = [
        body('eth_chainId', [], 1),
        body('personal_listAccounts', [], 2),
        body('web3_clientVersion', [], 3),
        body('personal_unlockAccount', ['0x' + '00'.repeat(20), 'x'], 4),
      ];
      const replies: any[] = await send(batch);
      const byId = new Map(replies.map((r) => [r.id, r]));
      assert.equal(byId.get(1).result, '0x2328');
      assert.deepEqual(byId.get(2).error, UNAUTHORIZED);
      assert.equal(typeof byId.get(3).result, 'string');
      assert.deepEqual(byId.get(4).error, UNAUTHORIZED);
      const authed: any[] = await send(batch, `Bearer ${token}`);
      const byId2 = new Map(authed.map((r) => [r.id, r]));
      assert.ok(Array.isArray(byId2.get(2).result));
      assert.equal(byId2.get(4).error.message, 'no key for given address or file');
    });
  }

  it('miner_ is private too (when the miner namespace is in this build)', async () => {
    const authed = await httpCall(node.http, body('miner_getHashrate'), `Bearer ${token}`);
    if (authed.error?.code === -32601) return; // namespace not built yet: nothing to protect
    assert.deepEqual((await httpCall(node.http, body('miner_getHashrate'))).error, UNAUTHORIZED);
    assert.deepEqual((await wsCall(node.ws, body('miner_getHashrate'))).error, UNAUTHORIZED);
  });
});

describe('--json-rpc.auth-token-file and app.toml auth-token-file', { timeout: 90_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'kestrel-token-'));
  const custom = 'c0ffee'.repeat(10) + 'beef';
  const tokenFile = join(dir, 'my.token');
  let node: KestrelNode | undefined;
  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    await node?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the flag replaces the home token; app.toml can name a file relative to the home', async () => {
    writeFileSync(tokenFile, custom + '\n', { mode: 0o600 });
    // A home of our own: the helper deletes the homes it creates on dispose, and this one must survive a restart.
    const home = join(dir, 'home');
    node = await startNode({ home, args: ['--json-rpc.auth-token-file', tokenFile] });
    const homeToken = tokenOf(node);
    assert.notEqual(homeToken, custom);
    assert.deepEqual(
      (await httpCall(node.http, body('personal_listAccounts'), `Bearer ${homeToken}`)).error,
      UNAUTHORIZED,
    );
    assert.ok(Array.isArray((await httpCall(node.http, body('personal_listAccounts'), `Bearer ${custom}`)).result));
    assert.ok(Array.isArray((await wsCall(node.ws, body('personal_listAccounts'), `Bearer ${custom}`)).result));
    assert.equal(await cli('auth', 'token', '--home', node.home, '--json-rpc.auth-token-file', tokenFile), custom);
    await node.stop();

    // The same through app.toml, relative to the home.
    const toml = join(node.home, 'config', 'app.toml');
    const text = readFileSync(toml, 'utf8');
    assert.match(text, /^auth-token-file = ""$/m);
    writeFileSync(join(node.home, 'config', 'rel.token'), 'feed'.repeat(16));
    writeFileSync(toml, text.replace(/^auth-token-file = ""$/m, 'auth-token-file = "config/rel.token"'));
    await node.dispose();
    node = await startNode({ home });
    assert.ok(
      Array.isArray((await httpCall(node.http, body('personal_listAccounts'), `Bearer ${'feed'.repeat(16)}`)).result),
    );
    assert.deepEqual(
      (await httpCall(node.http, body('personal_listAccounts'), `Bearer ${homeToken}`)).error,
      UNAUTHORIZED,
    );
    assert.equal(await cli('auth', 'token', '--home', home), 'feed'.repeat(16));
  });

  it('a missing or empty token file stops the start with a clear message', async () => {
    await node?.dispose();
    node = undefined;
    const empty = join(dir, 'empty.token');
    writeFileSync(empty, '\n');
    for (const [file, msg] of [
      [join(dir, 'absent.token'), /cannot read the JSON-RPC auth token file/],
      [empty, /auth token file .* is empty/],
    ] as const) {
      const args = [
        'bin/kestreld.js',
        'start',
        '--dev',
        '--home',
        join(dir, 'h2'),
        '--json-rpc.auth-token-file',
        file,
        '--json-rpc.address',
        '127.0.0.1:0',
        '--json-rpc.ws-address',
        '127.0.0.1:0',
      ];
      const res = await run(process.execPath, args, { cwd: REPO_ROOT, timeout: 30_000 }).then(
        () => undefined,
        (e: { code?: number; stderr?: string }) => e,
      );
      assert.equal(res?.code, 1, 'the start must fail');
      assert.match(res.stderr ?? '', msg);
    }
  });
});
