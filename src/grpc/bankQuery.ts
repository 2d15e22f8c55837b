// cosmos.bank.v1beta1.Query over gRPC: every method forwards its request bytes to the app's query (the handler
// abci_query runs too) at the height of the `x-cosmos-block-height` metadata, and echoes that height back.
import * as grpc from '@grpc/grpc-js';
import { InvalidParamsError } from '../errors/index.ts';
import { toGrpcStatus } from './errors.ts';
import {
  addLazyReflection,
  bindServer,
  rawService,
  shutdown,
  type GrpcServer,
  type RawUnaryHandler,
} from './server.ts';

/** The service and its methods, as proto/cosmos/bank/v1beta1/query.proto declares them. */
export const BANK_QUERY_SERVICE = 'cosmos.bank.v1beta1.Query';
/** The methods of BANK_QUERY_SERVICE. */
export const BANK_QUERY_METHODS = ['Balance', 'AllBalances', 'SpendableBalances', 'TotalSupply', 'SupplyOf'] as const;

/** The metadata key carrying the query height (0 or absent = latest), as the Cosmos SDK names it. */
export const HEIGHT_HEADER = 'x-cosmos-block-height';

/** What the bank service needs from the node. */
export interface BankQueryDeps {
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

function bankHandler(path: string, deps: BankQueryDeps): RawUnaryHandler {
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

/** Starts the gRPC server with cosmos.bank.v1beta1.Query and reflection on `address` (host:port). */
export async function startBankGrpcServer(address: string, deps: BankQueryDeps): Promise<GrpcServer> {
  const service = rawService(BANK_QUERY_SERVICE, BANK_QUERY_METHODS);
  const impl: grpc.UntypedServiceImplementation = {};
  for (const [name, m] of Object.entries(service)) impl[name] = bankHandler(m.path, deps);
  const server = new grpc.Server();
  server.addService(service, impl);
  addLazyReflection(server, 'cosmos/bank/v1beta1/query.proto');
  const port = await bindServer(server, address);
  return { port, close: () => shutdown(server) };
}
