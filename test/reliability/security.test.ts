// Security: every private method (personal_, miner_) refuses without the bearer token over HTTP, WS, in mixed
// batches and with the token in the query string; token and key files are 0600; no passphrase or private key
// reaches the logs or an error message; JS tracers cannot reach the host; CORS origins and allowed hosts are
// enforced. (The non-loopback warning is unit-tested in src/config/exposure.test.ts: tests never bind beyond
// 127.0.0.1.)
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { wsExchange } from '../helpers/ws.ts';
import { minerNamespace } from '../../src/rpc/namespaces/miner/index.ts';
import { personalNamespace } from '../../src/rpc/namespaces/personal/index.ts';
import { initHome } from '../../src/node/home.ts';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { freePort, type KestrelNode, post, printLogsOnFailure, rpc, startNode } from '../helpers/node.ts';
import { authToken, privateRpc } from '../helpers/privateRpc.ts';

const PRIVATE_METHODS = [...personalNamespace, ...minerNamespace].map((m) => m.name);
const UNAUTHORIZED = { code: 4100, message: 'unauthorized' };
const PASSPHRASE = 'correct-horse-battery-staple-7f3a9c';
const WRONG_PASSPHRASE = 'wrong-horse-battery-staple-e21b05';
// A key nobody else uses, imported through personal_importRawKey.
const IMPORTED_KEY = '8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63';

/** Plausible parameters so the call would do something if it were let through. */
function paramsFor(method: string): unknown[] {
  const a = DEV_ACCOUNTS[1]!.address;
  switch (method) {
    case 'personal_newAccount':
      return [PASSPHRASE];
    case 'personal_importRawKey':
      return [IMPORTED_KEY, PASSPHRASE];
    case 'personal_unlockAccount':
      return [a, PASSPHRASE, 10];
    case 'personal_lockAccount':
      return [a];
    case 'personal_sendTransaction':
    case 'personal_signTransaction':
      return [{ from: a, to: a, value: '0x1' }, PASSPHRASE];
    case 'personal_sign':
      // Not a dev account: under --dev personal_sign opens to those without the token (devSigning.test).
      return ['0x01', '0x' + '5a'.repeat(20), PASSPHRASE];
    case 'personal_ecRecover':
      return ['0x01', '0x' + '11'.repeat(65)];
    case 'miner_setEtherbase':
      return [a];
    case 'miner_setGasPrice':
      return ['0x1'];
    case 'miner_setExtra':
      return ['x'];
    case 'miner_setGasLimit':
      return ['0x1'];
    case 'miner_start':
      return [1];
    default:
      return [];
  }
}

/** Sends a raw HTTP request and returns the status and body (lets the test set any Host header). */
function rawHttp(url: string, head: string, body = ''): Promise<{ status: number; headers: string; body: string }> {
  const u = new URL(url);
  return new Promise((res, rej) => {
    const s = connect(Number(u.port), u.hostname);
    let got = '';
    s.on('data', (d) => (got += d.toString()));
    s.on('error', rej);
    s.on('close', () => {
      const m = /^HTTP\/1\.1 (\d{3})/.exec(got);
      if (!m) return rej(new Error(`no HTTP response: ${got.slice(0, 200)}`));
      const sep = got.indexOf('\r\n\r\n');
      res({ status: Number(m[1]), headers: got.slice(0, sep), body: got.slice(sep + 4) });
    });
    s.end(`${head}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
}

describe('security', { timeout: 180_000 }, () => {
  let node: KestrelNode;
  let metricsPort: number;
  /** Every error message the node sent in this file, checked for secrets at the end. */
  const seen: string[] = [];
  const record = (x: unknown) => seen.push(JSON.stringify(x));

  before(async () => {
    metricsPort = await freePort();
    node = await startNode({
      args: ['--json-rpc.allowed-hosts', 'localhost,node.example', '--metrics.address', `127.0.0.1:${metricsPort}`],
    });
  });
  afterEach(printLogsOnFailure(() => node));
  after(async () => node?.dispose());

  it(`none of the ${PRIVATE_METHODS.length} private methods answers without the token: HTTP, WS, query string`, async () => {
    const token = authToken(node);
    for (const method of PRIVATE_METHODS) {
      const req = { jsonrpc: '2.0', id: 7, method, params: paramsFor(method) };
      const http = await post(node.http, JSON.stringify(req));
      assert.deepEqual(http.json, { jsonrpc: '2.0', id: 7, error: UNAUTHORIZED }, `HTTP ${method}`);
      for (const q of [
        `?token=${token}`,
        `?auth=${token}`,
        `?access_token=${token}`,
        `?authorization=Bearer%20${token}`,
        `/${token}`,
      ]) {
        const r = await post(node.http + q, JSON.stringify(req));
        assert.deepEqual(
          (r.json as any)?.error,
          UNAUTHORIZED,
          `HTTP ${method} with the token in ${q.replace(token, '<token>')}`,
        );
      }
      for (const header of [`Bearer ${token}x`, `Basic ${token}`, token, `Bearer`, `Bearer ${token.slice(0, -1)}`]) {
        const r = await post(node.http, JSON.stringify(req), { headers: { authorization: header } });
        assert.deepEqual(
          (r.json as any)?.error,
          UNAUTHORIZED,
          `HTTP ${method} with Authorization "${header.replace(token, '<token>')}"`,
        );
      }
      assert.deepEqual((await wsExchange(node.ws, req)).error, UNAUTHORIZED, `WS ${method}`);
      assert.deepEqual(
        (await wsExchange(`${node.ws}/?token=${token}`, req)).error,
        UNAUTHORIZED,
        `WS ${method}, token in the query`,
      );
      record(http.json);
    }
    // The node did nothing: no new account, no key imported, etherbase unchanged.
    const listed = await privateRpc(node, 'personal_listAccounts');
    assert.equal(listed.result.length, DEV_ACCOUNTS.length);
  });

  it('in a batch mixing public and private calls only the private items fail; with the token they all answer', async () => {
    const calls = PRIVATE_METHODS.flatMap((m, i) => [
      { jsonrpc: '2.0', id: 2 * i, method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', id: 2 * i + 1, method: m, params: m === 'personal_listAccounts' ? [] : paramsFor(m) },
    ]);
    for (const transport of ['http', 'ws'] as const) {
      const replies: any[] =
        transport === 'http'
          ? ((await post(node.http, JSON.stringify(calls))).json as any[])
          : await wsExchange(node.ws, calls);
      assert.equal(replies.length, calls.length);
      for (const r of replies) {
        if (r.id % 2 === 0) assert.equal(r.result, '0x2328', `${transport}: public item ${r.id}`);
        else assert.deepEqual(r.error, UNAUTHORIZED, `${transport}: private item ${calls[r.id]!.method}`);
      }
    }
    const authorized = await post(
      node.http,
      JSON.stringify([calls[0], { jsonrpc: '2.0', id: 1, method: 'personal_listAccounts', params: [] }]),
      {
        headers: { authorization: `Bearer ${authToken(node)}` },
      },
    );
    assert.equal((authorized.json as any[])[1].result.length, DEV_ACCOUNTS.length);
  });

  it('the token file, the validator key and every key file are 0600 (directories 0700)', async () => {
    const created = await privateRpc(node, 'personal_newAccount', [PASSPHRASE]);
    record(created);
    const imported = await privateRpc(node, 'personal_importRawKey', [IMPORTED_KEY, PASSPHRASE]);
    record(imported);
    assert.match(created.result, /^0x[0-9a-fA-F]{40}$/);
    const mode = (p: string) => statSync(p).mode & 0o777;
    assert.equal(mode(join(node.home, 'config', 'auth.token')), 0o600, 'auth.token');
    assert.equal(mode(join(node.home, 'config', 'priv_validator_key.json')), 0o600, 'priv_validator_key.json');
    const keystore = join(node.home, 'keystore');
    assert.equal(mode(keystore), 0o700, 'keystore/');
    const files = readdirSync(keystore);
    assert.ok(files.length >= 2, `key files: ${files.join(', ')}`);
    for (const f of files) assert.equal(mode(join(keystore, f)), 0o600, `keystore/${f}`);
    assert.equal(mode(join(node.home, 'config')), 0o700, 'config/');
  });

  it('no token, passphrase or private key appears in error messages, the logs or the metrics (HTTP and WS)', async () => {
    const token = { authorization: `Bearer ${authToken(node)}` };
    const a = DEV_ACCOUNTS[1]!.address;
    const priv = async (method: string, params: unknown[]) => {
      const r = await post(node.http, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), { headers: token });
      record(r.json);
      return r.json as any;
    };
    const created = (await privateRpc(node, 'personal_newAccount', [PASSPHRASE])).result as string;
    // Wrong passphrases, malformed keys and parameters that put secrets next to bad values.
    assert.ok((await priv('personal_unlockAccount', [created, WRONG_PASSPHRASE, 1])).error);
    assert.ok(
      (await priv('personal_sendTransaction', [{ from: created, to: a, value: '0x1' }, WRONG_PASSPHRASE])).error,
    );
    assert.ok((await priv('personal_sign', ['0x01', created, WRONG_PASSPHRASE])).error);
    assert.ok((await priv('personal_signTransaction', [{ from: created, to: a, gas: 'bad' }, WRONG_PASSPHRASE])).error);
    assert.ok((await priv('personal_importRawKey', [IMPORTED_KEY + 'zz', WRONG_PASSPHRASE])).error);
    assert.ok((await priv('personal_importRawKey', [IMPORTED_KEY.slice(2), WRONG_PASSPHRASE])).error);
    assert.ok((await priv('personal_importRawKey', [IMPORTED_KEY, WRONG_PASSPHRASE])).error); // already imported
    assert.ok((await priv('personal_unlockAccount', [created, { passphrase: WRONG_PASSPHRASE }, 1])).error);
    assert.ok((await priv('personal_newAccount', [{ secret: WRONG_PASSPHRASE }])).error);
    for (const k of DEV_ACCOUNTS.slice(0, 3)) {
      record(await rpc(node.http, 'eth_sendRawTransaction', [k.privateKey]));
      record(await rpc(node.http, 'eth_sign', [k.address, k.privateKey]));
    }
    // The same over WS with the token on the upgrade request: it opens the private namespaces there too.
    const wsAuth = { authorization: `Bearer ${authToken(node)}` };
    const wsPriv = async (method: string, params: unknown[]) => {
      const r = await wsExchange(node.ws, { jsonrpc: '2.0', id: 1, method, params }, wsAuth);
      record(r);
      return r;
    };
    assert.equal((await wsPriv('personal_listAccounts', [])).result?.length > 0, true, 'WS with the token');
    assert.ok((await wsPriv('personal_unlockAccount', [created, WRONG_PASSPHRASE, 1])).error);
    assert.ok((await wsPriv('personal_importRawKey', [IMPORTED_KEY + 'zz', WRONG_PASSPHRASE])).error);
    assert.ok((await wsPriv('personal_importRawKey', [IMPORTED_KEY, WRONG_PASSPHRASE])).error);
    assert.ok((await wsPriv('personal_sign', ['0x01', created, WRONG_PASSPHRASE])).error);
    // A wrong token on the upgrade keeps them closed.
    const wrong = await wsExchange(
      node.ws,
      { jsonrpc: '2.0', id: 1, method: 'personal_listAccounts', params: [] },
      { authorization: `Bearer ${authToken(node)}x` },
    );
    assert.deepEqual(wrong.error, UNAUTHORIZED, 'WS upgrade with a wrong token');
    record(wrong);
    await new Promise((r) => setTimeout(r, 300));
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    assert.match(metrics, /kestrel_/, 'the metrics page answered');
    const secrets = [
      authToken(node),
      PASSPHRASE,
      WRONG_PASSPHRASE,
      IMPORTED_KEY,
      ...DEV_ACCOUNTS.map((k) => k.privateKey.slice(2)),
    ];
    const haystacks = {
      logs: node.logs().toLowerCase(),
      errors: seen.join('\n').toLowerCase(),
      metrics: metrics.toLowerCase(),
    };
    for (const [where, text] of Object.entries(haystacks)) {
      for (const s of secrets) {
        assert.ok(!text.includes(s.toLowerCase()), `${where} contain the secret ${s.slice(0, 6)}…`);
        // also split across a line or quoted in pieces: look for any 24-char window of a key
        if (/^[0-9a-f]{64}$/.test(s))
          assert.ok(!text.includes(s.slice(20, 44)), `${where} contain part of the key ${s.slice(0, 6)}…`);
      }
    }
  });

  it('JS tracers cannot escape the sandbox through debug_traceCall', async () => {
    const marker = join(tmpdir(), `kestrel-escape-${process.pid}-${Date.now()}`);
    const attempts = [
      'typeof process + typeof require + typeof module + typeof globalThis.process + typeof Buffer + typeof setTimeout',
      '(function(){ try { return this.constructor.constructor("return typeof process")(); } catch (e) { return "E:" + e; } })()',
      '(function(){ try { return Function("return typeof process + typeof require")(); } catch (e) { return "E:" + e; } })()',
      '(function(){ try { return typeof eval("process"); } catch (e) { return "E:" + e; } })()',
      `(function(){ try { require("fs").writeFileSync(${JSON.stringify(marker)}, "x"); return "WROTE"; } catch (e) { return "E:" + e; } })()`,
      `(function(){ try { process.binding("fs"); return "BOUND"; } catch (e) { return "E:" + e; } })()`,
      `(function(){ try { import("fs").then(function (fs) { fs.writeFileSync(${JSON.stringify(marker)}, "x"); }); return "IMPORT"; } catch (e) { return "E:" + e; } })()`,
      '(function(){ try { return typeof std + typeof os + typeof WebAssembly + typeof Atomics; } catch (e) { return "E:" + e; } })()',
      '(function(){ Object.prototype.polluted = "yes"; Array.prototype.push = null; JSON.stringify = null; return "POLLUTED"; })()',
      '(function(){ try { return Object.getOwnPropertyNames(globalThis).join(","); } catch (e) { return "E:" + e; } })()',
    ];
    const call = { from: DEV_ACCOUNTS[5]!.address, to: DEV_ACCOUNTS[6]!.address, value: '0x1' };
    const results: string[] = [];
    for (const expr of attempts) {
      const tracer = `{step: function() {}, fault: function() {}, result: function() { return ${expr}; }}`;
      const r = await rpc(node.http, 'debug_traceCall', [call, 'latest', { tracer, timeout: '5s' }], {
        timeoutMs: 30_000,
      });
      record(r);
      results.push(JSON.stringify(r.result ?? r.error));
    }
    const [types, ctor, fn, ev, write, binding, , extras, , globals] = results;
    assert.equal(types, '"undefinedundefinedundefinedundefinedundefinedundefined"');
    // Through the Function constructor or eval the tracer sees its own realm only: no process, no require.
    for (const r of [ctor, fn, ev]) assert.match(r!, /^"(undefined)+"$|E:/, `global constructor route: ${r}`);
    assert.match(write!, /E:/);
    assert.match(binding!, /E:/);
    // import() either does not exist in the sandbox or has no "fs" to load; either way nothing is written.
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(existsSync(marker), false, 'a tracer wrote a file on the host');
    assert.doesNotMatch(extras!, /object|function/, `host modules visible: ${extras}`);
    assert.doesNotMatch(globals!, /\bprocess\b|\brequire\b|\bstd\b|\bos\b/, `globals: ${globals}`);
    // Pollution stays in that tracer's runtime: the next tracer and the node are unaffected.
    const next = await rpc(node.http, 'debug_traceCall', [
      call,
      'latest',
      {
        tracer:
          '{step: function() {}, fault: function() {}, result: function() { var a = []; a.push(1); return String({}.polluted) + a.length; }}',
      },
    ]);
    assert.equal(next.result, 'undefined1', JSON.stringify(next));
    assert.equal((await rpc(node.http, 'eth_chainId')).result, '0x2328');
  });

  it('CORS: only configured origins get Access-Control-Allow-Origin; WS handshakes from other origins are refused', async () => {
    // A node whose app.toml allows one origin, set the way an operator would.
    const base = mkdtempSync(join(tmpdir(), 'kestrel-cors-'));
    const home = join(base, 'home');
    initHome(home, { chainId: 'kestrel_9000-1', dev: true });
    const toml = join(home, 'config', 'app.toml');
    writeFileSync(
      toml,
      readFileSync(toml, 'utf8').replace(/^cors-origins = .*$/m, 'cors-origins = ["https://good.example"]'),
    );
    const n = await startNode({ home });
    try {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
      const good = await post(n.http, body, { headers: { origin: 'https://good.example' } });
      assert.equal(good.headers.get('access-control-allow-origin'), 'https://good.example');
      const evil = await post(n.http, body, { headers: { origin: 'https://evil.example' } });
      assert.equal(evil.headers.get('access-control-allow-origin'), null);
      const pre = await fetch(n.http, {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
      });
      assert.equal(pre.headers.get('access-control-allow-origin'), null);
      const preGood = await fetch(n.http, {
        method: 'OPTIONS',
        headers: { origin: 'https://good.example', 'access-control-request-method': 'POST' },
      });
      assert.equal(preGood.headers.get('access-control-allow-origin'), 'https://good.example');
      const refused = await wsExchange(n.ws, {}, { origin: 'https://evil.example' }).then(
        () => 'open',
        (e: Error) => e.message,
      );
      assert.match(refused, /403/);
      const ok = await wsExchange(
        n.ws,
        { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] },
        { origin: 'https://good.example' },
      );
      assert.equal(ok.result, '0x2328');
    } finally {
      await n.dispose();
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('allowed hosts: a Host outside json-rpc.allowed-hosts gets 403 "invalid host specified"; IPs and listed names pass', async () => {
    const port = new URL(node.http).port;
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
    const head = (host: string) => `POST / HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json`;
    for (const host of [
      `evil.example:${port}`,
      'evil.example',
      `localhost.evil.example:${port}`,
      `127.0.0.1.nip.io:${port}`,
    ]) {
      const r = await rawHttp(node.http, head(host), body);
      assert.equal(r.status, 403, host);
      assert.equal(JSON.parse(r.body).error.message, 'invalid host specified');
    }
    for (const host of [
      `localhost:${port}`,
      `LOCALHOST:${port}`,
      `node.example:${port}`,
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
      '10.1.2.3',
    ]) {
      const r = await rawHttp(node.http, head(host), body);
      assert.equal(r.status, 200, host);
      assert.equal(JSON.parse(r.body).result, '0x2328', host);
    }
  });
});
