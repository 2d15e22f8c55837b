// CometBFT's /websocket endpoint: the same JSON-RPC methods as over HTTP, plus subscribe / unsubscribe /
// unsubscribe_all for tm.event='NewBlock', 'NewBlockHeader' and 'Tx' (optionally AND tx.hash='…' / tx.height=N).
// Events go out with the id of the subscribe request and `result.query`, as CometBFT sends them (cosmjs's
// WebsocketClient matches on both).
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import type { BlockRecord, ReceiptRecord } from '../store/records.ts';
import { txResultOf } from './chainMethods.ts';
import { parseConditions } from './chainMethods.ts';
import { base64, formatBlockResult, txHash } from './format.ts';
import { CometInternalError, type CometDeps } from './methods.ts';
import { encodeTx } from '../primitives/tx/encode.ts';
import { errorMessage } from '../errors/index.ts';

/** CometBFT's defaults are 100 clients and 5 subscriptions per client; dev tools open a few more. */
const MAX_CLIENTS = 100;
const MAX_SUBSCRIPTIONS_PER_CLIENT = 100;
/** A client that stops reading is dropped once this much is queued for it. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

type EventKind = 'NewBlock' | 'NewBlockHeader' | 'Tx';

interface Subscription {
  socket: WebSocket;
  id: unknown;
  query: string;
  kind: EventKind;
  txHash?: string;
  height?: bigint;
}

/** Parses a subscription query into the event kind and its filters. */
function parseQuery(query: string): Omit<Subscription, 'socket' | 'id' | 'query'> {
  let kind: EventKind | undefined;
  let hash: string | undefined;
  let height: bigint | undefined;
  for (const c of parseConditions(query)) {
    if (c.key === 'tm.event') {
      if (c.value !== 'NewBlock' && c.value !== 'NewBlockHeader' && c.value !== 'Tx') {
        throw new CometInternalError(`unsupported event "${c.value}": NewBlock, NewBlockHeader and Tx are served`);
      }
      kind = c.value;
    } else if (c.key === 'tx.hash') hash = c.value.toUpperCase();
    else if (c.key === 'tx.height') height = BigInt(c.value);
    else throw new CometInternalError(`unsupported query key "${c.key}"`);
  }
  if (kind === undefined) throw new CometInternalError("the query needs tm.event='NewBlock', 'NewBlockHeader' or 'Tx'");
  if (kind !== 'Tx' && (hash !== undefined || height !== undefined)) {
    throw new CometInternalError('tx.hash and tx.height only filter Tx events');
  }
  return { kind, txHash: hash, height };
}

/** Serves /websocket on `server`; `handle` answers an ordinary JSON-RPC request object. */
export function attachWebsocket(
  server: Server,
  deps: CometDeps,
  handle: (req: unknown) => Promise<object>,
): () => void {
  const subs = new Set<Subscription>();

  const push = (s: Subscription, data: unknown, events: Record<string, string[]>) => {
    if (s.socket.readyState !== s.socket.OPEN) return;
    if (s.socket.bufferedAmount > MAX_BUFFERED_BYTES) {
      s.socket.close(1008, 'client is not reading its events');
      return;
    }
    s.socket.send(JSON.stringify({ jsonrpc: '2.0', id: s.id, result: { query: s.query, data, events } }));
  };

  deps.onBlock((block: BlockRecord, receipts: ReceiptRecord[]) => {
    if (subs.size === 0) return;
    const parent = deps.blockByNumber(block.number - 1n);
    const formatted = formatBlockResult(block, {
      chainId: deps.chainId,
      parent,
      appHash: deps.appHash(parent ?? block),
    });
    const txResults = block.txs.map((_, i) => txResultOf(block, receipts, i));
    const height = block.number.toString();
    for (const s of subs) {
      if (s.kind === 'NewBlock') {
        const value = {
          block: formatted.block,
          block_id: formatted.block_id,
          result_finalize_block: {
            events: [],
            tx_results: txResults,
            validator_updates: [],
            consensus_param_updates: null,
            app_hash: base64(deps.appHash(block)),
          },
        };
        push(s, { type: 'tendermint/event/NewBlock', value }, { 'tm.event': ['NewBlock'], 'block.height': [height] });
      } else if (s.kind === 'NewBlockHeader') {
        push(
          s,
          { type: 'tendermint/event/NewBlockHeader', value: { header: formatted.block.header } },
          { 'tm.event': ['NewBlockHeader'] },
        );
      } else {
        if (s.height !== undefined && s.height !== block.number) continue;
        block.txs.forEach((tx, index) => {
          const raw = encodeTx(tx);
          const hash = txHash(raw);
          if (s.txHash !== undefined && s.txHash !== hash) return;
          const value = { TxResult: { height, index, tx: base64(raw), result: txResults[index] } };
          push(
            s,
            { type: 'tendermint/event/Tx', value },
            { 'tm.event': ['Tx'], 'tx.hash': [hash], 'tx.height': [height] },
          );
        });
      }
    }
  });

  const reply = (socket: WebSocket, id: unknown, body: object) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify({ jsonrpc: '2.0', id, ...body }));
  };
  const fail = (socket: WebSocket, id: unknown, e: unknown) => {
    const data = errorMessage(e);
    reply(socket, id, { error: { code: -32603, message: 'Internal error', data } });
  };

  const onMessage = async (socket: WebSocket, text: string) => {
    let req: { id?: unknown; method?: unknown; params?: unknown };
    try {
      req = JSON.parse(text);
    } catch (e) {
      reply(socket, -1, { error: { code: -32700, message: 'Parse error', data: (e as Error).message } });
      return;
    }
    const id = req?.id ?? -1;
    const params = (Array.isArray(req?.params) ? { query: req.params[0] } : (req?.params ?? {})) as { query?: unknown };
    const mine = [...subs].filter((s) => s.socket === socket);
    switch (req?.method) {
      case 'subscribe': {
        try {
          if (typeof params.query !== 'string') throw new CometInternalError('query must be a string');
          if (mine.some((s) => s.query === params.query)) throw new CometInternalError('already subscribed');
          if (mine.length >= MAX_SUBSCRIPTIONS_PER_CLIENT)
            throw new CometInternalError('max_subscriptions_per_client reached');
          subs.add({ socket, id, query: params.query, ...parseQuery(params.query) });
          reply(socket, id, { result: {} });
        } catch (e) {
          fail(socket, id, e);
        }
        return;
      }
      case 'unsubscribe': {
        const found = mine.filter((s) => s.query === params.query);
        if (found.length === 0) return fail(socket, id, new CometInternalError('subscription not found'));
        for (const s of found) subs.delete(s);
        reply(socket, id, { result: {} });
        return;
      }
      case 'unsubscribe_all': {
        if (mine.length === 0) return fail(socket, id, new CometInternalError('subscription not found'));
        for (const s of mine) subs.delete(s);
        reply(socket, id, { result: {} });
        return;
      }
      default:
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(await handle(req)));
    }
  };

  const onConnection = (socket: WebSocket) => {
    socket.on('message', (data, isBinary) => {
      if (isBinary)
        return reply(socket, -1, { error: { code: -32600, message: 'Invalid Request', data: 'binary frame' } });
      onMessage(socket, data.toString()).catch((e: unknown) => fail(socket, -1, e));
    });
    socket.on('close', () => {
      for (const s of subs) if (s.socket === socket) subs.delete(s);
    });
    socket.on('error', () => socket.terminate());
  };

  // ws (and the node:https and node:tls it requires) loads on the first upgrade, not during the node's start. The
  // upgraded socket has no reader meanwhile, so what the client sends waits in it.
  let wss: WebSocketServer | undefined;
  let loading: Promise<WebSocketServer> | undefined;
  let detached = false;
  const wsServer = () =>
    (loading ??= import('ws').then(({ WebSocketServer: Wss }) => {
      wss = new Wss({ noServer: true, maxPayload: 1_000_000 });
      wss.on('connection', onConnection);
      return wss;
    }));

  const onUpgrade = (req: IncomingMessage, sock: Duplex, head: Buffer) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== '/websocket' || (wss?.clients.size ?? 0) >= MAX_CLIENTS) {
      sock.end(
        `HTTP/1.1 ${path !== '/websocket' ? '404 Not Found' : '503 Service Unavailable'}\r\nConnection: close\r\n\r\n`,
      );
      return;
    }
    // A client that goes away while ws loads must not leave an unhandled socket error.
    const onError = () => sock.destroy();
    sock.on('error', onError);
    wsServer().then(
      (w) => {
        sock.off('error', onError);
        if (detached || sock.destroyed) sock.destroy();
        else w.handleUpgrade(req, sock, head, (ws) => w.emit('connection', ws, req));
      },
      () => sock.destroy(),
    );
  };
  server.on('upgrade', onUpgrade);
  return () => {
    detached = true;
    server.off('upgrade', onUpgrade);
    subs.clear();
    if (!wss) return;
    for (const c of wss.clients) c.terminate();
    wss.close();
  };
}
