// The JSON-RPC method table of the enabled namespaces, and its dispatcher (counted by the metrics when on).
import type { NodeConfig } from '../config/schema.ts';
import { TxSyncTimeoutError } from '../errors/index.ts';
import { rejectReason } from '../metrics/rejectReason.ts';
import type { RpcMetrics } from '../metrics/rpcMetrics.ts';
import type { RpcContext } from '../rpc/context.ts';
import type { RpcMethod } from '../rpc/method.ts';
import { debugNamespace } from '../rpc/namespaces/debug/index.ts';
import { devNamespaces } from '../rpc/namespaces/dev/index.ts';
import { ethNamespace } from '../rpc/namespaces/eth/index.ts';
import { minerNamespace } from '../rpc/namespaces/miner/index.ts';
import { netNamespace } from '../rpc/namespaces/net/index.ts';
import { otsNamespace } from '../rpc/namespaces/ots/index.ts';
import { personalNamespace } from '../rpc/namespaces/personal/index.ts';
import { traceNamespace } from '../rpc/namespaces/trace/index.ts';
import { txpoolNamespace } from '../rpc/namespaces/txpool/index.ts';
import { web3Namespace } from '../rpc/namespaces/web3/index.ts';
import { buildMethodTable, createDispatcher } from '../rpc/registry.ts';
import type { Dispatcher } from '../rpc/server/jsonrpc.ts';

/** The methods whose failures are admission refusals (counted by reason in the metrics). */
const SUBMIT_METHODS = new Set([
  'eth_sendRawTransaction',
  'eth_sendRawTransactionSync',
  'eth_sendTransaction',
  'personal_sendTransaction',
]);

/** The methods of json-rpc.api's namespaces, plus evm_/anvil_/hardhat_ when the dev toolkit is on. */
export function methodTable(config: NodeConfig, devToolkit: boolean): Map<string, RpcMethod<RpcContext>> {
  return buildMethodTable(
    {
      eth: ethNamespace,
      net: netNamespace,
      web3: web3Namespace,
      personal: personalNamespace,
      txpool: txpoolNamespace,
      miner: minerNamespace,
      debug: debugNamespace,
      trace: traceNamespace,
      ots: otsNamespace,
      ...devNamespaces,
    },
    devToolkit ? [...config.jsonRpc.api, ...Object.keys(devNamespaces)] : config.jsonRpc.api,
  );
}

/** The dispatcher over `table`; with metrics, each call is timed and each refused send counted by its reason. */
export function rpcDispatcher(
  ctx: RpcContext,
  table: Map<string, RpcMethod<RpcContext>>,
  metrics?: { rpc: RpcMetrics; txRejected(reason: string): void },
): Dispatcher {
  const dispatcher = createDispatcher(ctx, table);
  if (!metrics) return dispatcher;
  return metrics.rpc.instrument(dispatcher, (method, e) => {
    // A sync send that timed out was admitted: no refusal to count.
    if (SUBMIT_METHODS.has(method) && !(e instanceof TxSyncTimeoutError)) metrics.txRejected(rejectReason(e));
  });
}
