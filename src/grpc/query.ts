// The Cosmos query services over gRPC: every method forwards its request bytes to the app's query (the handler
// abci_query runs too) at the height of the `x-cosmos-block-height` metadata, and echoes that height back.
import * as grpc from '@grpc/grpc-js';
import { InvalidParamsError } from '../errors/index.ts';
import type { ConnectionSink } from './deferred.ts';
import { toGrpcStatus } from './errors.ts';
import {
  addLazyReflection,
  bindServer,
  rawService,
  shutdown,
  type GrpcServer,
  type RawUnaryHandler,
} from './server.ts';

/** A query service: its gRPC name, its methods and the .proto file (under proto/) declaring it. */
export interface QueryService {
  name: string;
  methods: readonly string[];
  file: string;
}

/** The services the node serves, with their methods as the files under proto/ declare them (server.test checks). */
export const COSMOS_QUERY_SERVICES: readonly QueryService[] = [
  {
    name: 'cosmos.bank.v1beta1.Query',
    file: 'cosmos/bank/v1beta1/query.proto',
    methods: ['Balance', 'AllBalances', 'SpendableBalances', 'TotalSupply', 'SupplyOf'],
  },
  {
    name: 'cosmos.staking.v1beta1.Query',
    file: 'cosmos/staking/v1beta1/query.proto',
    methods: [
      'Validators',
      'Validator',
      'ValidatorDelegations',
      'ValidatorUnbondingDelegations',
      'Delegation',
      'UnbondingDelegation',
      'DelegatorDelegations',
      'DelegatorUnbondingDelegations',
      'Redelegations',
      'DelegatorValidators',
      'DelegatorValidator',
      'Pool',
      'Params',
    ],
  },
  {
    name: 'cosmos.distribution.v1beta1.Query',
    file: 'cosmos/distribution/v1beta1/query.proto',
    methods: [
      'Params',
      'ValidatorDistributionInfo',
      'ValidatorOutstandingRewards',
      'ValidatorCommission',
      'ValidatorSlashes',
      'DelegationRewards',
      'DelegationTotalRewards',
      'DelegatorValidators',
      'DelegatorWithdrawAddress',
      'CommunityPool',
    ],
  },
  {
    name: 'cosmos.slashing.v1beta1.Query',
    file: 'cosmos/slashing/v1beta1/query.proto',
    methods: ['Params', 'SigningInfo', 'SigningInfos'],
  },
];

/** Files reflection serves beyond the services' own: the type an Any in a staking answer names. */
const EXTRA_REFLECTION_FILES = ['cosmos/crypto/ed25519/keys.proto'];

/** The metadata key carrying the query height (0 or absent = latest), as the Cosmos SDK names it. */
export const HEIGHT_HEADER = 'x-cosmos-block-height';

/** What the query services need from the node. */
export interface QueryDeps {
  /** The app's query: path, protobuf request, height (never 0 here) → protobuf response. */
  query(path: string, data: Uint8Array, height: bigint): Promise<Uint8Array>;
  /** Height of the latest committed block. */
  headHeight(): bigint;
}

/** Reads the height metadata with the SDK's checks (0 / absent = latest). */
export function heightFromMetadata(md: grpc.Metadata, head: bigint): bigint {
  const values = md.get(HEIGHT_HEADER);
  if (values.length === 0) return head;
  const text = String(values[0]);
  if (!/^[+-]?\d+$/.test(text)) throw new InvalidParamsError(`invalid height header "${text}": invalid syntax`);
  const h = BigInt(text);
  if (h < 0n) throw new InvalidParamsError('cannot query with height < 0; please provide a valid height');
  return h === 0n ? head : h;
}

function queryHandler(path: string, deps: QueryDeps): RawUnaryHandler {
  return (call, callback) => {
    let height: bigint;
    try {
      height = heightFromMetadata(call.metadata, deps.headHeight());
    } catch (e) {
      callback(toGrpcStatus(e));
      return;
    }
    deps.query(path, call.request, height).then(
      (bytes) => {
        const md = new grpc.Metadata();
        md.set(HEIGHT_HEADER, height.toString());
        call.sendMetadata(md);
        callback(null, bytes);
      },
      (e: unknown) => {
        const st = toGrpcStatus(e);
        if (st.code === grpc.status.INTERNAL) console.error(`gRPC ${path} failed:`, e);
        callback(st);
      },
    );
  };
}

/** The gRPC server with the query services and reflection over them, not bound to any port. */
function queryServer(deps: QueryDeps, services: readonly QueryService[]): grpc.Server {
  const server = new grpc.Server();
  for (const s of services) {
    const service = rawService(s.name, s.methods);
    const impl: grpc.UntypedServiceImplementation = {};
    for (const [name, m] of Object.entries(service)) impl[name] = queryHandler(m.path, deps);
    server.addService(service, impl);
  }
  addLazyReflection(server, [...services.map((s) => s.file), ...EXTRA_REFLECTION_FILES]);
  return server;
}

/** Starts the gRPC server with the query services and reflection over them on `address` (host:port). */
export async function startQueryGrpcServer(
  address: string,
  deps: QueryDeps,
  services: readonly QueryService[] = COSMOS_QUERY_SERVICES,
): Promise<GrpcServer> {
  const server = queryServer(deps, services);
  const port = await bindServer(server, address);
  return { port, close: () => shutdown(server) };
}

/** The same server fed connections accepted elsewhere (a port bound before grpc-js loaded, see deferred.ts). */
export function queryGrpcSink(
  deps: QueryDeps,
  services: readonly QueryService[] = COSMOS_QUERY_SERVICES,
): ConnectionSink {
  const server = queryServer(deps, services);
  const injector = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
  return { inject: (socket) => injector.injectConnection(socket), close: () => shutdown(server) };
}
