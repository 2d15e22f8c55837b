import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Request, Response, ResponseProcessProposal_ProposalStatus } from 'cosmjs-types/tendermint/abci/types';
import { encodeFrame, FrameDecoder } from './framing.ts';
import { parseAbciLaddr, startAbciServer, type AbciApplication, type AbciServer } from './server.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An app whose handlers take varying time, recording the order they ran in and whether two ever overlapped. */
function recordingApp() {
  const calls: string[] = [];
  let running = 0;
  let overlapped = false;
  const step = async (name: string, ms: number) => {
    running++;
    if (running > 1) overlapped = true;
    calls.push(name);
    await sleep(ms);
    running--;
  };
  const app: AbciApplication = {
    async info() {
      await step('info', 5);
      return { data: 'x', version: '1', appVersion: 1n, lastBlockHeight: 7n, lastBlockAppHash: Uint8Array.of(1, 2) };
    },
    async initChain() {
      await step('initChain', 1);
      return { validators: [], appHash: new Uint8Array(0) };
    },
    async query(r) {
      await step('query', 1);
      return {
        code: 0,
        log: '',
        info: '',
        index: 0n,
        key: new Uint8Array(0),
        value: r.data,
        height: r.height,
        codespace: '',
      };
    },
    async checkTx(r) {
      await step(`checkTx:${r.tx[0]}`, 30 - r.tx[0]!);
      if (r.tx[0] === 99) throw new Error('boom');
      return {
        code: r.tx[0]! % 2,
        data: new Uint8Array(0),
        log: '',
        info: '',
        gasWanted: BigInt(r.tx[0]!),
        gasUsed: 0n,
        events: [],
        codespace: '',
      };
    },
    async prepareProposal(r) {
      await step('prepare', 1);
      return { txs: r.txs };
    },
    async processProposal() {
      await step('process', 1);
      return { status: ResponseProcessProposal_ProposalStatus.ACCEPT };
    },
    async finalizeBlock(r) {
      await step('finalize', 20);
      return { events: [], txResults: [], validatorUpdates: [], appHash: r.hash };
    },
    async commit() {
      await step('commit', 1);
      return { retainHeight: 0n };
    },
  };
  return { app, calls, overlapped: () => overlapped };
}

/** A raw ABCI client: writes requests, collects decoded responses. */
async function client(address: string) {
  const p = parseAbciLaddr(address);
  const sock: Socket = p.kind === 'tcp' ? connect(p.port, p.host) : connect(p.path);
  await new Promise<void>((res, rej) => {
    sock.once('connect', res);
    sock.once('error', rej);
  });
  const decoder = new FrameDecoder();
  const got: Response[] = [];
  let closed = false;
  sock.on('data', (c) => {
    for (const f of decoder.push(c)) got.push(Response.decode(f));
  });
  sock.on('close', () => {
    closed = true;
  });
  sock.on('error', () => {});
  const frame = (r: Record<string, unknown>) => encodeFrame(Request.encode(Request.fromPartial(r as never)).finish());
  return {
    sock,
    got,
    closed: () => closed,
    send: (...rs: Array<Record<string, unknown>>) => sock.write(Buffer.concat(rs.map(frame))),
    raw: (b: Uint8Array) => sock.write(b),
    async waitFor(n: number, ms = 5000) {
      const end = Date.now() + ms;
      while (got.length < n && Date.now() < end && !closed) await sleep(5);
      return got;
    },
  };
}

describe('ABCI socket server', () => {
  const servers: AbciServer[] = [];
  after(async () => {
    for (const s of servers) await s.close();
  });

  it('answers pipelined requests in arrival order even when earlier handlers are slower', async () => {
    const rec = recordingApp();
    const s = await startAbciServer({ laddr: 'tcp://127.0.0.1:0', app: rec.app, log: () => {} });
    servers.push(s);
    const c = await client(s.address);
    c.send(
      { echo: { message: 'hi' } },
      { checkTx: { tx: Uint8Array.of(1) } },
      { checkTx: { tx: Uint8Array.of(20) } },
      { info: {} as never },
      { flush: {} },
    );
    const got = await c.waitFor(5);
    assert.deepEqual(
      got.map((r) => Object.keys(Response.toJSON(r) as object)[0]),
      ['echo', 'checkTx', 'checkTx', 'info', 'flush'],
    );
    assert.equal(got[0]!.echo!.message, 'hi');
    assert.equal(got[1]!.checkTx!.gasWanted, 1n);
    assert.equal(got[2]!.checkTx!.gasWanted, 20n);
    assert.equal(got[3]!.info!.lastBlockHeight, 7n);
    c.sock.destroy();
  });

  it('shows the app every request of one read before the first is answered (received), then answers in order', async () => {
    const rec = recordingApp();
    const seen: string[] = [];
    const app: AbciApplication = {
      ...rec.app,
      received: (r) => seen.push(`${Object.keys(Request.toJSON(r) as object)[0]}@${rec.calls.length}`),
    };
    const s = await startAbciServer({ laddr: 'tcp://127.0.0.1:0', app, log: () => {} });
    servers.push(s);
    const c = await client(s.address);
    c.send({ checkTx: { tx: Uint8Array.of(3) } }, { checkTx: { tx: Uint8Array.of(5) } }, { flush: {} });
    const got = await c.waitFor(3);
    // All three were seen while no handler had run yet (the calls count was 0 each time).
    assert.deepEqual(seen, ['checkTx@0', 'checkTx@0', 'flush@0']);
    assert.deepEqual(rec.calls, ['checkTx:3', 'checkTx:5']);
    assert.deepEqual(
      got.map((r) => r.checkTx?.gasWanted),
      [3n, 5n, undefined],
    );
    c.sock.destroy();
  });

  it('serialises handlers across the four connections', async () => {
    const rec = recordingApp();
    const s = await startAbciServer({ laddr: 'tcp://127.0.0.1:0', app: rec.app, log: () => {} });
    servers.push(s);
    const [q, , mp, cons] = await Promise.all([
      client(s.address),
      client(s.address),
      client(s.address),
      client(s.address),
    ]);
    cons!.send({ finalizeBlock: { hash: Uint8Array.of(5) } as never }, { commit: {} }, { flush: {} });
    mp!.send({ checkTx: { tx: Uint8Array.of(2) } }, { checkTx: { tx: Uint8Array.of(4) } }, { flush: {} });
    q!.send({ query: { path: '/x', data: Uint8Array.of(9), height: 3n, prove: false } }, { flush: {} });
    await Promise.all([cons!.waitFor(3), mp!.waitFor(3), q!.waitFor(2)]);
    assert.equal(rec.overlapped(), false);
    assert.deepEqual([...cons!.got[0]!.finalizeBlock!.appHash], [5]);
    assert.deepEqual([...q!.got[0]!.query!.value], [9]);
    for (const c of [q, mp, cons]) c!.sock.destroy();
  });

  it('answers snapshot and vote-extension requests without the app', async () => {
    const s = await startAbciServer({ laddr: 'tcp://127.0.0.1:0', app: recordingApp().app, log: () => {} });
    servers.push(s);
    const c = await client(s.address);
    c.send({ listSnapshots: {} }, { offerSnapshot: {} as never }, { verifyVoteExtension: {} as never }, { flush: {} });
    const got = await c.waitFor(4);
    assert.deepEqual(got[0]!.listSnapshots!.snapshots, []);
    assert.equal(got[1]!.offerSnapshot!.result, 2); // ABORT: this app cannot restore snapshots
    assert.equal(got[2]!.verifyVoteExtension!.status, 1); // ACCEPT, never UNKNOWN
    c.sock.destroy();
  });

  it('closes a connection whose stream is not ABCI framing, logs why, and keeps serving others', async () => {
    const lines: string[] = [];
    const s = await startAbciServer({
      laddr: 'tcp://127.0.0.1:0',
      app: recordingApp().app,
      log: (l) => lines.push(l),
      maxMessageBytes: 1024,
    });
    servers.push(s);
    const bad = await client(s.address);
    bad.raw(encodeFrame(Uint8Array.of(0xff, 0xff, 0xff))); // a frame, but not a protobuf Request
    const over = await client(s.address);
    over.raw(Uint8Array.of(0x80, 0x10)); // 2048 bytes announced, over the 1024 limit
    const end = Date.now() + 5000;
    while ((!bad.closed() || !over.closed()) && Date.now() < end) await sleep(10);
    assert.ok(bad.closed() && over.closed());
    assert.ok(
      lines.some((l) => /exceeds the limit/.test(l)),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((l) => /undecodable ABCI request/.test(l)),
      lines.join('\n'),
    );
    const good = await client(s.address);
    good.send({ echo: { message: 'still here' } });
    assert.equal((await good.waitFor(1))[0]!.echo!.message, 'still here');
    good.sock.destroy();
  });

  it('turns a handler crash into an Exception response and ends that connection', async () => {
    const lines: string[] = [];
    const s = await startAbciServer({ laddr: 'tcp://127.0.0.1:0', app: recordingApp().app, log: (l) => lines.push(l) });
    servers.push(s);
    const c = await client(s.address);
    c.send({ checkTx: { tx: Uint8Array.of(99) } }, { flush: {} });
    const got = await c.waitFor(1);
    assert.match(got[0]!.exception!.error, /checkTx: boom/);
    const end = Date.now() + 3000;
    while (!c.closed() && Date.now() < end) await sleep(10);
    assert.ok(c.closed());
    assert.ok(lines.some((l) => /checkTx failed/.test(l)));
  });

  it('listens on a unix socket too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'abci-'));
    try {
      const s = await startAbciServer({
        laddr: `unix://${join(dir, 'app.sock')}`,
        app: recordingApp().app,
        log: () => {},
      });
      const c = await client(s.address);
      c.send({ echo: { message: 'u' } });
      assert.equal((await c.waitFor(1))[0]!.echo!.message, 'u');
      c.sock.destroy();
      await s.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('parses listen addresses and refuses malformed ones', () => {
    assert.deepEqual(parseAbciLaddr('tcp://127.0.0.1:26658'), { kind: 'tcp', host: '127.0.0.1', port: 26658 });
    assert.deepEqual(parseAbciLaddr('unix:///tmp/a.sock'), { kind: 'unix', path: '/tmp/a.sock' });
    assert.throws(() => parseAbciLaddr('tcp://127.0.0.1'), /expected tcp:\/\/host:port/);
    assert.throws(() => parseAbciLaddr('http://x:1'), /invalid ABCI address/);
  });
});
