// The node's listeners, in the order the readiness contract needs: metrics, WebSocket, gRPC, the consensus mode's
// servers, and HTTP JSON-RPC last (clients take its first answer to mean every other listener accepts connections).
// The gRPC port is bound in that order, but grpc-js itself loads shortly after JSON-RPC listens, or on the first gRPC
// connection (src/grpc/deferred.ts): a client's first JSON-RPC answer does not wait for it.
import type { NodeConfig } from '../config/schema.ts';
import { ipHostPort, reserveGrpcPort } from '../grpc/deferred.ts';
import type { QueryDeps } from '../grpc/query.ts';
import type { GrpcServer } from '../grpc/server.ts';
import { lineLogger, type LogSink } from '../log/logger.ts';
import type { AbciTimer } from '../metrics/abci.ts';
import { startMetricsServer } from '../metrics/server.ts';
import type { Dispatcher } from '../rpc/server/jsonrpc.ts';
import { BusyPoll } from '../rpc/server/busyPoll.ts';
import { chooseTransport, startHttpTransport, startWsTransport } from '../rpc/server/transport.ts';
import type { ConsensusMode, ModeListeners } from './mode.ts';

/** What the listeners serve. */
export interface ListenerDeps {
  config: NodeConfig;
  logs: LogSink;
  dispatcher: Dispatcher;
  /** The bearer token the private namespaces need. */
  authToken: string;
  /** The Cosmos queries gRPC answers (bank, staking, distribution, slashing). */
  queries: QueryDeps;
  mode: ConsensusMode;
  /** Prometheus metrics (--metrics): served, and timing the ABCI calls. */
  metrics?: AbciTimer & { page(): Promise<{ contentType: string; body: string }> };
}

/** The listening servers; close() closes them all (not the consensus mode). */
export interface Listeners extends ModeListeners {
  httpPort: number;
  wsPort: number;
  grpcPort: number;
  metricsPort?: number;
  close(): Promise<void>;
}

/**
 * How long after JSON-RPC listens grpc-js loads (unless a gRPC client connects sooner): past a client's first
 * eth_blockNumber, which a client polling for the node sends within milliseconds.
 */
const GRPC_LOAD_DELAY_MS = 50;

/**
 * The gRPC query server on `address`: its port bound now and grpc-js loaded later (`loadLater` called once
 * JSON-RPC listens) when the host is an IP literal, as the default is; any other form (a host name, which grpc-js
 * binds on every address it resolves to) starts grpc-js at once, as before.
 */
async function startGrpc(
  address: string,
  queries: QueryDeps,
): Promise<GrpcServer & { loadLater(delayMs: number): void }> {
  const at = ipHostPort(address);
  if (at === undefined) {
    const server = await (await import('../grpc/query.ts')).startQueryGrpcServer(address, queries);
    return { ...server, loadLater: () => undefined };
  }
  const load = async () => (await import('../grpc/query.ts')).queryGrpcSink(queries);
  const server = await reserveGrpcPort(address, at, load);
  return { port: server.port, close: () => server.close(), loadLater: (ms) => server.serveAfter(ms) };
}

/** host:port (IPv6 hosts in brackets) → its parts. */
export function splitHostPort(addr: string): { host: string; port: number } {
  const i = addr.lastIndexOf(':');
  if (i < 0) throw new Error(`invalid address "${addr}": expected host:port`);
  const port = Number(addr.slice(i + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port in "${addr}"`);
  return { host: addr.slice(0, i).replace(/^\[|\]$/g, ''), port };
}

/**
 * Picks the JSON-RPC transport, starts the consensus mode (it makes block 1 before anything answers), then binds
 * every listener. A failure closes what was already started and stops the mode.
 */
export async function startListeners(d: ListenerDeps): Promise<Listeners> {
  const { config, logs, dispatcher, authToken, mode, metrics } = d;
  const rpc = config.jsonRpc;
  const limits = {
    maxBodyBytes: rpc.maxBodyBytes,
    maxBatchItems: rpc.maxBatchItems,
    maxResponseBytes: rpc.maxResponseBytes,
  };
  const maxOpenConnections = rpc.maxOpenConnections;
  const transport = chooseTransport(rpc.transport, { connectionCap: maxOpenConnections > 0 });
  console.log(`JSON-RPC transport: ${transport.kind}: ${transport.reason}`);
  await mode.start();
  const http = splitHostPort(rpc.address);
  const ws = splitHostPort(rpc.wsAddress);
  const started: { close(): Promise<void> }[] = [];
  const track = <T extends { close(): Promise<void> }>(server: T): T => (started.push(server), server);
  const busyPoll = new BusyPoll(rpc.busyPollUs);
  const closeAll = async () => {
    busyPoll.stop();
    await Promise.allSettled(started.map((server) => server.close()));
  };
  try {
    let metricsPort: number | undefined;
    if (metrics) {
      const at = splitHostPort(config.metrics.address);
      const log = lineLogger(logs.logger('metrics'), 'error');
      metricsPort = track(await startMetricsServer(at.host, at.port, () => metrics.page(), log)).port;
    }
    // What both JSON-RPC listeners share.
    const served = {
      dispatcher,
      limits,
      authToken,
      corsOrigins: rpc.corsOrigins,
      maxOpenConnections,
      busyPoll,
      log: lineLogger(logs.logger('rpc'), 'error'),
    };
    const wsServer = track(
      await startWsTransport(transport, {
        ...ws,
        ...served,
        // A connection whose client stopped reading is closed well past the point where its subscriptions were dropped.
        maxBufferedBytes: Math.max(64 * 1024 * 1024, 4 * rpc.wsSubscriptionBufferBytes),
      }),
    );
    const grpcServer = track(await startGrpc(config.grpcAddress, d.queries));
    const consensus = await mode.listen(track, metrics);
    const httpServer = track(
      await startHttpTransport(transport, {
        ...http,
        ...served,
        coalesceWrites: rpc.coalesceWrites,
        requestTimeoutMs: rpc.httpTimeoutMs,
        allowedHosts: rpc.allowedHosts,
      }),
    );
    grpcServer.loadLater(GRPC_LOAD_DELAY_MS);
    return {
      httpPort: httpServer.port,
      wsPort: wsServer.port,
      grpcPort: grpcServer.port,
      ...consensus,
      metricsPort,
      close: closeAll,
    };
  } catch (e) {
    await closeAll();
    await mode.stop();
    throw e;
  }
}
