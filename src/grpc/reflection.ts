// gRPC server reflection, loaded on the first reflection call (server.ts lazyReflection): parsing proto/ and
// building the descriptors costs CPU that no other request needs. Carries the fix for @grpc/reflection's
// empty `dependency` lists (grpc-node#2595), without which strict clients (grpcurl, the C++ DescriptorPool) cannot
// link a query.proto to the files it imports.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';

/** proto/ at the repository root: only reflection parses it (the server's handlers carry their method names). */
const PROTO_DIR = fileURLToPath(new URL('../../proto/', import.meta.url));

/** One reflection service (v1 or v1alpha) as @grpc/reflection registers it. */
export interface ReflectionEndpoint {
  definition: grpc.ServiceDefinition;
  implementation: grpc.UntypedServiceImplementation;
}

/** Loads .proto files under proto/ with the options the reflection service expects. */
export function loadProto(files: string | readonly string[]): protoLoader.PackageDefinition {
  return protoLoader.loadSync(typeof files === 'string' ? files : [...files], {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    includeDirs: [PROTO_DIR],
  });
}

interface ReflectionImpl {
  fileDependencies: Map<{ name?: string; dependency: string[] }, Array<{ name?: string }>>;
  fileEncodings: Map<object, Uint8Array>;
}

/** Reflection (v1 and v1alpha) over the files' services, each file's `dependency` list filled in, keyed by method path. */
export function reflectionEndpoints(files: readonly string[]): Map<string, ReflectionEndpoint> {
  const reflection = new ReflectionService(loadProto(files));
  // Encode with the protobufjs copy @grpc/reflection decoded the descriptors with.
  const req = createRequire(createRequire(import.meta.url).resolve('@grpc/reflection'));
  const { FileDescriptorProto } = req('protobufjs/ext/descriptor') as {
    FileDescriptorProto: { encode(m: object): { finish(): Uint8Array } };
  };
  const impls = reflection as unknown as { v1: ReflectionImpl; v1Alpha: ReflectionImpl };
  for (const impl of [impls.v1, impls.v1Alpha]) {
    for (const [f, deps] of impl.fileDependencies) {
      f.dependency = [...new Set(deps.map((d) => d.name).filter((n): n is string => !!n))].sort();
      impl.fileEncodings.set(f, FileDescriptorProto.encode(f).finish());
    }
  }
  // @grpc/reflection registers its services itself: collect them instead, by method path.
  const out = new Map<string, ReflectionEndpoint>();
  const collector = {
    addService(definition: grpc.ServiceDefinition, implementation: grpc.UntypedServiceImplementation) {
      for (const m of Object.values(definition)) out.set(m.path, { definition, implementation });
    },
  };
  reflection.addToServer(collector as unknown as grpc.Server);
  return out;
}
