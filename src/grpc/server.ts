// The gRPC server: serves its services with raw protobuf bytes in and out (the handlers decode and encode
// themselves, so gRPC and abci_query share them), and reflection, which loads (proto/ parsed, descriptors built) on
// its first call: a call that arrives meanwhile waits for it.
import { EventEmitter } from 'node:events';
import * as grpc from '@grpc/grpc-js';
import type { ReflectionEndpoint } from './reflection.ts';

/** A unary handler over raw request bytes. */
export type RawUnaryHandler = grpc.handleUnaryCall<Uint8Array, Uint8Array>;

/** A running gRPC server. */
export interface GrpcServer {
  port: number;
  close(): Promise<void>;
}

const rawCodec = {
  requestSerialize: (v: Uint8Array) => Buffer.from(v.buffer, v.byteOffset, v.length),
  requestDeserialize: (b: Buffer) => new Uint8Array(b.buffer, b.byteOffset, b.length),
  responseSerialize: (v: Uint8Array) => Buffer.from(v.buffer, v.byteOffset, v.length),
  responseDeserialize: (b: Buffer) => new Uint8Array(b.buffer, b.byteOffset, b.length),
};

/**
 * Unary methods `/<service>/<Method>` with identity (de)serializers: handlers see and return protobuf bytes. The
 * method names are written out (no .proto parsing at startup); a test checks them against proto/.
 */
export function rawService(service: string, methods: readonly string[]): grpc.ServiceDefinition {
  const out: Record<string, grpc.MethodDefinition<Uint8Array, Uint8Array>> = {};
  for (const name of methods) {
    out[name] = { path: `/${service}/${name}`, requestStream: false, responseStream: false, ...rawCodec };
  }
  return out;
}

/** The reflection services, v1 and v1alpha: one bidirectional method each. */
const REFLECTION_PATHS = [
  '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo',
  '/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo',
];

/**
 * Adds reflection (v1 and v1alpha) over the services of `files` (under proto/). Registered at once with raw bytes;
 * @grpc/reflection and the descriptors load on the first call, whose messages wait for them and then go, decoded
 * and encoded with its definitions, to its own handler.
 */
export function addLazyReflection(server: grpc.Server, files: readonly string[]): void {
  let endpoints: Promise<Map<string, ReflectionEndpoint>> | undefined;
  const load = () => (endpoints ??= import('./reflection.ts').then((m) => m.reflectionEndpoints(files)));
  for (const path of REFLECTION_PATHS) {
    const definition: grpc.ServiceDefinition = {
      ServerReflectionInfo: { path, requestStream: true, responseStream: true, ...rawCodec },
    };
    const handler: grpc.handleBidiStreamingCall<Uint8Array, Uint8Array> = (call) => {
      // Messages keep their order: each is handed on after the ones before it (and after the load).
      let queue = load().then((all) => {
        const { definition: def, implementation } = all.get(path)!;
        const method = def.ServerReflectionInfo!;
        // The handler @grpc/reflection wrote reads decoded messages from a stream and writes decoded answers.
        const stream = Object.assign(new EventEmitter(), {
          write: (m: unknown) => call.write(method.responseSerialize(m) as Uint8Array),
          end: () => call.end(),
        });
        (implementation.ServerReflectionInfo as (s: unknown) => void)(stream);
        return (event: 'data' | 'end', bytes?: Uint8Array) =>
          event === 'data' ? stream.emit('data', method.requestDeserialize(Buffer.from(bytes!))) : stream.emit('end');
      });
      const fail = (e: unknown) => call.destroy(e instanceof Error ? e : new Error(String(e)));
      queue.catch(fail);
      call.on('data', (bytes: Uint8Array) => {
        queue = queue.then((feed) => (feed('data', bytes), feed));
        queue.catch(fail);
      });
      call.on('end', () => void queue.then((feed) => feed('end')).catch(fail));
    };
    server.addService(definition, { ServerReflectionInfo: handler });
  }
}

/** Binds `server` on host:port; a failure (port taken, bad host) is a startup error naming the flag. */
export function bindServer(server: grpc.Server, address: string): Promise<number> {
  return new Promise((res, rej) => {
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, port) => {
      if (err) rej(new Error(`gRPC server: cannot listen on ${address} (--grpc.address): ${err.message}`));
      else res(port);
    });
  });
}

/** Stops accepting calls, waits briefly for calls in flight, then cuts the rest. */
export function shutdown(server: grpc.Server, graceMs = 2000): Promise<void> {
  return new Promise((res) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      res();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      res();
    });
  });
}
