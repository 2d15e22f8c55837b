// The bench's "bare handler": a JSON-RPC server that does nothing above its transport. It parses each request and
// answers eth_blockNumber with a constant, on the same back end Kestrel runs (uWebSockets.js or node:http), so the
// ratio Kestrel / bare measures exactly the cost of everything Kestrel adds above the transport.
// Usage: node --import tsx bench/bare/server.ts <uws|node> <port>
import http from 'node:http';
import { BusyPoll } from '../../src/rpc/server/busyPoll.ts';
import { loadUws, type HttpResponse } from '../../src/rpc/server/uws.ts';

const REPLY_TAIL = ',"result":"0x1"}';
// The transport's busy-polling, as kestreld runs it (its default window; BUSY_POLL_US overrides).
const busyPoll = new BusyPoll(Number(process.env.BUSY_POLL_US ?? 100));

function reply(body: string): string {
  const msg = JSON.parse(body) as { id?: unknown };
  return `{"jsonrpc":"2.0","id":${JSON.stringify(msg.id ?? null)}${REPLY_TAIL}`;
}

// The transport's coalesced writes, as kestreld runs them by default (COALESCE=0 writes each reply at once): after
// the first reply of a turn of the loop, the rest are written together once every ready connection has been read.
const coalesce = process.env.COALESCE !== '0';
type Pending = { res: HttpResponse; out: string; aborted: () => boolean };
const pending: Pending[] = [];
let writing: Pending | undefined;
let turn = false;
const writeOne = (): void => {
  writing!.res.writeHeader('Content-Type', 'application/json').end(writing!.out);
};
function flush(): void {
  for (const p of pending) {
    writing = p;
    if (!p.aborted()) p.res.cork(writeOne);
  }
  pending.length = 0;
  turn = false;
}

function serveUws(port: number): void {
  const loaded = loadUws();
  if (!loaded.ok) throw new Error(loaded.reason);
  const app = loaded.module.App();
  app.post('/*', (res) => {
    let aborted = false;
    res.onAborted(() => {
      aborted = true;
    });
    let chunks: Buffer[] | undefined;
    res.onData((chunk, isLast) => {
      if (!isLast) {
        (chunks ??= []).push(Buffer.from(chunk.slice(0)));
        return;
      }
      const text =
        chunks === undefined
          ? Buffer.from(chunk).toString('utf8')
          : Buffer.concat([...chunks, Buffer.from(chunk)]).toString('utf8');
      const out = reply(text);
      // As kestreld: the first reply of a turn goes at once, the rest wait for the flush.
      if (coalesce && turn) pending.push({ res, out, aborted: () => aborted });
      else {
        if (coalesce) {
          turn = true;
          setImmediate(flush);
        }
        if (!aborted) res.writeHeader('Content-Type', 'application/json').end(out);
      }
      busyPoll.touch();
    });
  });
  app.listen('127.0.0.1', port, (socket) => {
    if (!socket) throw new Error(`bare: cannot listen on ${port}`);
    process.stdout.write(`bare uws listening on ${port}\n`);
  });
}

function serveNode(port: number): void {
  const server = http.createServer({ keepAlive: true, keepAliveTimeout: 120_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const out = reply(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(out)) });
      res.end(out);
      busyPoll.touch();
    });
  });
  server.listen(port, '127.0.0.1', () => process.stdout.write(`bare node listening on ${port}\n`));
}

const [kind, portText] = process.argv.slice(2);
const port = Number(portText);
if (kind === 'uws') serveUws(port);
else if (kind === 'node') serveNode(port);
else throw new Error('usage: bare/server.ts <uws|node> <port>');
