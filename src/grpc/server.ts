// The gRPC server: loads the services from proto/, serves them with raw protobuf bytes in and out (the handlers
// decode and encode themselves, so gRPC and abci_query share them), and turns reflection on with the fix for
// @grpc/reflection's empty `dependency` lists (grpc-node#2595), without which strict clients (grpcurl, the C++
// DescriptorPool) cannot link cosmos_bank_v1beta1.proto to the files it imports.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';

/** proto/ at the repository root. */
export const PROTO_DIR = fileURLToPath(new URL('../../proto/', import.meta.url));

/** A unary handler over raw request bytes. */
export type RawUnaryHandler = grpc.handleUnaryCall<Uint8Array, Uint8Array>;

/** A running gRPC server. */
export interface GrpcServer {
  port: number;
  close(): Promise<void>;
}

/** Loads a .proto file under proto/ with the options the reflection service expects. */
export function loadProto(file: string): protoLoader.PackageDefinition {
  return protoLoader.loadSync(file, {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    includeDirs: [PROTO_DIR],
  });
}

/** The service's method definitions with identity (de)serializers: handlers see and return protobuf bytes. */
export function rawService(pkg: protoLoader.PackageDefinition, service: string): grpc.ServiceDefinition {
  const def = pkg[service] as grpc.ServiceDefinition | undefined;
  if (!def) throw new Error(`service ${service} not found in proto definitions`);
  const out: Record<string, grpc.MethodDefinition<Uint8Array, Uint8Array>> = {};
  for (const [name, m] of Object.entries(def)) {
    out[name] = {
      ...m,
      requestSerialize: (v: Uint8Array) => Buffer.from(v),
      requestDeserialize: (b: Buffer) => new Uint8Array(b.buffer, b.byteOffset, b.length),
      responseSerialize: (v: Uint8Array) => Buffer.from(v.buffer, v.byteOffset, v.length),
      responseDeserialize: (b: Buffer) => new Uint8Array(b.buffer, b.byteOffset, b.length),
    };
  }
  return out;
}

interface ReflectionImpl {
  fileDependencies: Map<{ name?: string; dependency: string[] }, Array<{ name?: string }>>;
  fileEncodings: Map<object, Uint8Array>;
}

/** Adds reflection (v1 and v1alpha) with each file's `dependency` list filled in. */
export function addReflection(server: grpc.Server, pkg: protoLoader.PackageDefinition): void {
  const reflection = new ReflectionService(pkg);
  // Encode with the protobufjs copy @grpc/reflection decoded the descriptors with.
  const req = createRequire(createRequire(import.meta.url).resolve('@grpc/reflection'));
  const { FileDescriptorProto } = req('protobufjs/ext/descriptor') as {
    FileDescriptorProto: { encode(m: object): { finish(): Uint8Array } };
  };
  const impls = reflection as unknown as { v1: ReflectionImpl; v1Alpha: ReflectionImpl };
  for (const impl of [impls.v1, impls.v1Alpha]) {
    for (const [file, deps] of impl.fileDependencies) {
      file.dependency = [...new Set(deps.map((d) => d.name).filter((n): n is string => !!n))].sort();
      impl.fileEncodings.set(file, FileDescriptorProto.encode(file).finish());
    }
  }
  reflection.addToServer(server);
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
