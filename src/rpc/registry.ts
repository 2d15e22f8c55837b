// Collects the enabled namespaces into one dispatcher. Private namespaces need the bearer token; disabled or
// unknown names answer -32601 like geth.
import { MethodNotFoundError, UnauthorizedError } from '../errors/index.ts';
import type { RpcContext } from './context.ts';
import type { RpcMethod } from './method.ts';
import type { CallMeta, Dispatcher } from './server/jsonrpc.ts';

/** Namespaces whose methods require `Authorization: Bearer <token>`. */
export const PRIVATE_NAMESPACES = new Set(['personal', 'miner']);

/** Builds the method table for the enabled namespaces; duplicate names are a startup error. */
export function buildMethodTable(
  namespaces: Record<string, RpcMethod<RpcContext>[]>,
  enabled: readonly string[],
): Map<string, RpcMethod<RpcContext>> {
  const table = new Map<string, RpcMethod<RpcContext>>();
  for (const ns of enabled) {
    for (const m of namespaces[ns] ?? []) {
      if (!m.name.startsWith(`${ns}_`)) throw new Error(`method ${m.name} registered under namespace ${ns}`);
      if (table.has(m.name)) throw new Error(`duplicate RPC method ${m.name}`);
      table.set(m.name, m);
    }
  }
  return table;
}

/** A method and whether the caller must be authorized for it, found with one lookup. */
interface Route {
  readonly method: RpcMethod<RpcContext>;
  readonly private: boolean;
}

/** A dispatcher that decodes params once and runs the method with the service context. */
export function createDispatcher(ctx: RpcContext, table: Map<string, RpcMethod<RpcContext>>): Dispatcher {
  // Decided once per method rather than by cutting the namespace out of every call's name, and kept beside the
  // method so a call costs one table lookup (a batch makes one per item).
  const routes = new Map<string, Route>();
  for (const [name, method] of table) {
    routes.set(name, { method, private: PRIVATE_NAMESPACES.has(name.slice(0, name.indexOf('_'))) });
  }
  // The last method found: a batch names the same method item after item, and comparing a fresh name with it costs
  // less than hashing that name for the table (the parser's strings carry no hash yet).
  let lastName = '';
  let lastRoute: Route | undefined;
  return {
    // Not async: a method with its answer at hand (eth_blockNumber, a cached balance) returns it without a promise.
    call(method: string, params: unknown[], meta: CallMeta): unknown {
      const route = method === lastName ? lastRoute : routes.get(method);
      if (route === undefined) throw new MethodNotFoundError(method);
      lastName = method;
      lastRoute = route;
      const m = route.method;
      if (route.private && !meta.authorized) return runUnauthorized(ctx, m, params, meta);
      return m.run(ctx, m.decode(params), meta);
    },
  };
}

/**
 * A private method called without the token: refused, unless the method opens itself to these params. Params that
 * do not decode are refused as unauthorized too, so a caller without the token learns nothing about the method.
 */
function runUnauthorized(ctx: RpcContext, m: RpcMethod<RpcContext>, params: unknown[], meta: CallMeta): unknown {
  if (!m.openTo) throw new UnauthorizedError();
  let args: unknown[];
  try {
    args = m.decode(params);
  } catch {
    throw new UnauthorizedError();
  }
  if (!m.openTo(ctx, args)) throw new UnauthorizedError();
  return m.run(ctx, args, meta);
}
