// Listener start order: the HTTP JSON-RPC port is the node's "ready" signal (clients and the test helper take its
// first answer to mean the node is up), so it binds only after every other listener, and never opens at all when
// another listener cannot bind.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import WebSocket from 'ws';
import { freePort, type KestrelNode, printLogsOnFailure, REPO_ROOT, startNode } from '../helpers/node.ts';

function connects(port: number): Promise<boolean> {
  return new Promise((res) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      res(true);
    });
    s.once('error', () => res(false));
  });
}

describe('listener start order', { timeout: 120_000 }, () => {
  let node: KestrelNode | undefined;
  const dirs: string[] = [];
  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    await node?.dispose();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('every other listener accepts connections once HTTP answers', async () => {
    node = await startNode();
    const ports = [node.grpc, node.comet].map((u) => Number(new URL(u.includes('://') ? u : `http://${u}`).port));
    for (const p of ports) assert.ok(await connects(p), `port ${p} accepts at once`);
    const ws = new WebSocket(node.ws);
    await new Promise<void>((res, rej) => {
      ws.once('open', () => res());
      ws.once('error', rej);
    });
    ws.terminate();
  });

  it('when gRPC cannot bind, the start fails with a clear error and the HTTP port never opens', async () => {
    const blocker = net.createServer();
    await new Promise<void>((res) => blocker.listen(0, '127.0.0.1', () => res()));
    const busy = (blocker.address() as net.AddressInfo).port;
    const [http, ws, comet] = [await freePort(), await freePort(), await freePort()];
    const dir = mkdtempSync(join(tmpdir(), 'kestrel-listeners-'));
    dirs.push(dir);
    const proc = spawn(
      process.execPath,
      [
        'bin/kestreld.js',
        'start',
        '--dev',
        '--home',
        join(dir, 'home'),
        '--json-rpc.address',
        `127.0.0.1:${http}`,
        '--json-rpc.ws-address',
        `127.0.0.1:${ws}`,
        '--grpc.address',
        `127.0.0.1:${busy}`,
        '--rpc.laddr',
        `tcp://127.0.0.1:${comet}`,
      ],
      { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((res) => proc.once('exit', (code) => res(code)));
    // Poll the HTTP port for the whole life of the process: it must never accept a connection.
    let httpOpened = false;
    let done = false;
    void exited.then(() => (done = true));
    while (!done) {
      if (await connects(http)) httpOpened = true;
      await new Promise((r) => setTimeout(r, 2));
    }
    blocker.close();
    assert.equal(await exited, 1, 'the start fails');
    assert.match(stderr, /gRPC server: cannot listen on 127\.0\.0\.1:\d+ \(--grpc\.address\).*EADDRINUSE/);
    assert.equal(httpOpened, false, 'HTTP JSON-RPC never accepted a connection');
  });
});
