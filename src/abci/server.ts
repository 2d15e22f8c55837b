// The ABCI socket server CometBFT connects to (proxy_app = tcp://… or unix://…). CometBFT opens four connections
// (query, snapshot, mempool, consensus) and checks that every response matches its oldest pending request, so
// each connection answers strictly in arrival order even when a handler is async. Handlers of all connections
// run one at a time (Go's server holds one mutex around the app), so the app never sees two requests at once.
import { existsSync, unlinkSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import {
  Request,
  Response,
  ResponseApplySnapshotChunk_Result,
  ResponseOfferSnapshot_Result,
  ResponseVerifyVoteExtension_VerifyStatus,
  type RequestApplySnapshotChunk,
  type RequestCheckTx,
  type RequestLoadSnapshotChunk,
  type RequestOfferSnapshot,
  type ResponseApplySnapshotChunk,
  type ResponseListSnapshots,
  type ResponseLoadSnapshotChunk,
  type ResponseOfferSnapshot,
  type RequestFinalizeBlock,
  type RequestInfo,
  type RequestInitChain,
  type RequestPrepareProposal,
  type RequestProcessProposal,
  type RequestQuery,
  type ResponseCheckTx,
  type ResponseCommit,
  type ResponseFinalizeBlock,
  type ResponseInfo,
  type ResponseInitChain,
  type ResponsePrepareProposal,
  type ResponseProcessProposal,
  type ResponseQuery,
} from 'cosmjs-types/tendermint/abci/types';
import { DEFAULT_MAX_MESSAGE_BYTES, encodeFrame, FrameDecoder } from './framing.ts';
import { errorText } from '../log/logger.ts';

/** The application behind the socket. Vote extensions are answered by the server (empty: Kestrel has none). */
export interface AbciApplication {
  info(req: RequestInfo): Promise<ResponseInfo> | ResponseInfo;
  initChain(req: RequestInitChain): Promise<ResponseInitChain> | ResponseInitChain;
  query(req: RequestQuery): Promise<ResponseQuery> | ResponseQuery;
  checkTx(req: RequestCheckTx): Promise<ResponseCheckTx> | ResponseCheckTx;
  prepareProposal(req: RequestPrepareProposal): Promise<ResponsePrepareProposal> | ResponsePrepareProposal;
  processProposal(req: RequestProcessProposal): Promise<ResponseProcessProposal> | ResponseProcessProposal;
  finalizeBlock(req: RequestFinalizeBlock): Promise<ResponseFinalizeBlock> | ResponseFinalizeBlock;
  commit(): Promise<ResponseCommit> | ResponseCommit;
  /**
   * Optional: sees each request as it is read, before its turn in the connection's queue (the CheckTx requests of
   * one read can start their stateless work together). Must not change state: the turn may be far off.
   */
  received?(req: Request): void;
  /** State sync (optional): without these the server offers no snapshots and refuses offered ones. */
  listSnapshots?(): ResponseListSnapshots;
  loadSnapshotChunk?(req: RequestLoadSnapshotChunk): ResponseLoadSnapshotChunk;
  offerSnapshot?(req: RequestOfferSnapshot): Promise<ResponseOfferSnapshot> | ResponseOfferSnapshot;
  applySnapshotChunk?(req: RequestApplySnapshotChunk): Promise<ResponseApplySnapshotChunk> | ResponseApplySnapshotChunk;
}

/** Server options. */
export interface AbciServerOptions {
  /** tcp://host:port (port 0 = any free port) or unix:///path/to/socket. */
  laddr: string;
  app: AbciApplication;
  maxMessageBytes?: number;
  log?: (line: string) => void;
  /** Called when CometBFT opens a connection (it opens four at each start). */
  onConnection?: () => void;
}

/** A listening ABCI server. */
export interface AbciServer {
  /** The address CometBFT should dial (tcp://127.0.0.1:<actual port> or unix://…). */
  readonly address: string;
  /** Number of open connections. */
  readonly connections: number;
  /** Stops listening, closes every connection and waits for a handler in progress (e.g. a Commit) to finish. */
  close(): Promise<void>;
}

/** A parsed listen address. */
export type AbciListenAddress = { kind: 'tcp'; host: string; port: number } | { kind: 'unix'; path: string };

/** Parses tcp://host:port or unix:///path (a bare host:port is taken as tcp). */
export function parseAbciLaddr(laddr: string): AbciListenAddress {
  if (laddr.startsWith('unix://')) {
    const path = laddr.slice('unix://'.length);
    if (path === '') throw new Error(`invalid ABCI address "${laddr}": expected unix:///path/to/socket`);
    return { kind: 'unix', path };
  }
  const m = /^(?:tcp:\/\/)?\[?([^\]/]*?)\]?:(\d{1,5})$/.exec(laddr);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) throw new Error(`invalid ABCI address "${laddr}": expected tcp://host:port or unix:///path`);
  return { kind: 'tcp', host: m[1] === '' ? '127.0.0.1' : m[1]!, port };
}

/** Runs async jobs one after another, in submission order. */
class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  /** Queues `job`; its result (or error) is delivered once every earlier job has settled. */
  run<T>(job: () => Promise<T> | T): Promise<T> {
    const next = this.tail.then(job, job);
    this.tail = next.catch(() => {});
    return next;
  }
}

type Handled = { response: Response; fatal?: boolean };

/** Answers one request; app handlers run under `appLock`. */
async function handle(req: Request, app: AbciApplication, appLock: SerialQueue): Promise<Handled> {
  const locked = <T>(fn: () => Promise<T> | T) => appLock.run(fn);
  if (req.echo) return { response: Response.fromPartial({ echo: { message: req.echo.message } }) };
  if (req.flush) return { response: Response.fromPartial({ flush: {} }) };
  if (req.info) {
    const r = req.info;
    return { response: Response.fromPartial({ info: await locked(() => app.info(r)) }) };
  }
  if (req.initChain) {
    const r = req.initChain;
    return { response: Response.fromPartial({ initChain: await locked(() => app.initChain(r)) }) };
  }
  if (req.query) {
    const r = req.query;
    return { response: Response.fromPartial({ query: await locked(() => app.query(r)) }) };
  }
  if (req.checkTx) {
    const r = req.checkTx;
    return { response: Response.fromPartial({ checkTx: await locked(() => app.checkTx(r)) }) };
  }
  if (req.prepareProposal) {
    const r = req.prepareProposal;
    return { response: Response.fromPartial({ prepareProposal: await locked(() => app.prepareProposal(r)) }) };
  }
  if (req.processProposal) {
    const r = req.processProposal;
    return { response: Response.fromPartial({ processProposal: await locked(() => app.processProposal(r)) }) };
  }
  if (req.finalizeBlock) {
    const r = req.finalizeBlock;
    return { response: Response.fromPartial({ finalizeBlock: await locked(() => app.finalizeBlock(r)) }) };
  }
  if (req.commit) return { response: Response.fromPartial({ commit: await locked(() => app.commit()) }) };
  if (req.listSnapshots) {
    const list = app.listSnapshots ? await locked(() => app.listSnapshots!()) : { snapshots: [] };
    return { response: Response.fromPartial({ listSnapshots: list }) };
  }
  if (req.offerSnapshot) {
    const r = req.offerSnapshot;
    const res = app.offerSnapshot
      ? await locked(() => app.offerSnapshot!(r))
      : { result: ResponseOfferSnapshot_Result.ABORT };
    return { response: Response.fromPartial({ offerSnapshot: res }) };
  }
  if (req.loadSnapshotChunk) {
    const r = req.loadSnapshotChunk;
    const res = app.loadSnapshotChunk ? await locked(() => app.loadSnapshotChunk!(r)) : { chunk: new Uint8Array(0) };
    return { response: Response.fromPartial({ loadSnapshotChunk: res }) };
  }
  if (req.applySnapshotChunk) {
    const r = req.applySnapshotChunk;
    const res = app.applySnapshotChunk
      ? await locked(() => app.applySnapshotChunk!(r))
      : { result: ResponseApplySnapshotChunk_Result.ABORT, refetchChunks: [], rejectSenders: [] };
    return { response: Response.fromPartial({ applySnapshotChunk: res }) };
  }
  if (req.extendVote) return { response: Response.fromPartial({ extendVote: { voteExtension: new Uint8Array(0) } }) };
  if (req.verifyVoteExtension) {
    return {
      response: Response.fromPartial({
        verifyVoteExtension: { status: ResponseVerifyVoteExtension_VerifyStatus.ACCEPT },
      }),
    };
  }
  return { response: Response.fromPartial({ exception: { error: 'unknown ABCI request type' } }), fatal: true };
}

function requestName(req: Request): string {
  return Object.keys(req).find((k) => (req as Record<string, unknown>)[k] !== undefined) ?? 'unknown';
}

/** Starts the ABCI server; resolves once it listens. */
export async function startAbciServer(opts: AbciServerOptions): Promise<AbciServer> {
  const log = opts.log ?? ((l: string) => console.error(l));
  const where = parseAbciLaddr(opts.laddr);
  const appLock = new SerialQueue();
  const sockets = new Set<Socket>();
  let nextConn = 1;

  const onConnection = (socket: Socket) => {
    const id = nextConn++;
    sockets.add(socket);
    opts.onConnection?.();
    socket.setNoDelay(true);
    const decoder = new FrameDecoder(opts.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES);
    const order = new SerialQueue();
    let dead = false;
    const kill = (why: string) => {
      if (dead) return;
      dead = true;
      log(`abci: closing connection ${id}: ${why}`);
      socket.destroy();
    };
    socket.on('data', (chunk: Buffer) => {
      if (dead) return;
      let frames: Buffer[];
      try {
        frames = decoder.push(chunk);
      } catch (e) {
        kill((e as Error).message);
        return;
      }
      for (const frame of frames) {
        let req: Request;
        try {
          req = Request.decode(frame);
        } catch (e) {
          kill(`undecodable ABCI request: ${(e as Error).message}`);
          return;
        }
        opts.app.received?.(req);
        void order.run(async () => {
          if (dead) return;
          let out: Handled;
          try {
            out = await handle(req, opts.app, appLock);
          } catch (e) {
            // An app handler threw: a bug, not bad input (those become response codes). CometBFT stops on an
            // Exception, which is the right outcome for a state machine that can no longer be trusted.
            log(`abci: ${requestName(req)} failed: ${errorText(e)}`);
            out = {
              response: Response.fromPartial({ exception: { error: `${requestName(req)}: ${(e as Error).message}` } }),
              fatal: true,
            };
          }
          if (dead) return;
          socket.write(encodeFrame(Response.encode(out.response).finish()));
          if (out.fatal) socket.end();
        });
      }
    });
    socket.on('error', (e) => kill(e.message));
    socket.on('close', () => {
      dead = true;
      sockets.delete(socket);
    });
  };

  const server: Server = createServer(onConnection);
  if (where.kind === 'unix' && existsSync(where.path)) unlinkSync(where.path);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const done = () => {
      server.off('error', reject);
      resolve();
    };
    if (where.kind === 'unix') server.listen(where.path, done);
    else server.listen(where.port, where.host, done);
  });
  server.on('error', (e) => log(`abci: server error: ${e.message}`));
  const address =
    where.kind === 'unix' ? `unix://${where.path}` : `tcp://${where.host}:${(server.address() as AddressInfo).port}`;
  return {
    address,
    get connections() {
      return sockets.size;
    },
    close: async () => {
      await new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      });
      await appLock.run(() => undefined);
    },
  };
}
