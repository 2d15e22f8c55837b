// The shape of one JSON-RPC method: a literal wire name, the codecs that decode its params once into typed
// values, and a handler of a few lines that calls a service.
import type { Codec } from './params/codec.ts';
import { decodeParams } from './params/codec.ts';
import type { CallMeta } from './server/jsonrpc.ts';
import { PlainString } from './server/jsonrpc.ts';

/** Codec tuple → tuple of decoded value types. */
export type Decoded<C extends readonly Codec<unknown>[]> = { [K in keyof C]: C[K] extends Codec<infer T> ? T : never };

/** One JSON-RPC method bound to a service context type. */
export interface RpcMethod<Ctx> {
  readonly name: string;
  /** Decodes positional params (throws InvalidParamsError with geth's wording). */
  decode(params: unknown[]): unknown[];
  /** Runs the method on decoded params; the result is already in wire form. `meta` says who called (eth_subscribe). */
  run(ctx: Ctx, args: unknown[], meta?: CallMeta): Promise<unknown> | unknown;
  /** A private method's exception: whether a caller without the token may run it with these decoded params. */
  readonly openTo?: (ctx: Ctx, args: unknown[]) => boolean;
}

/**
 * Defines a method; the handler receives the decoded, typed tuple. `hexResult`: every string the handler answers
 * synchronously is 0x-hex text it built (toQuantity, bytesToHex), so the envelope may quote it unchecked.
 */
export function defineMethod<Ctx, const C extends readonly Codec<unknown>[]>(def: {
  name: string;
  params: C;
  hexResult?: boolean;
  handler: (ctx: Ctx, args: Decoded<C>, meta?: CallMeta) => Promise<unknown> | unknown;
  /** See RpcMethod.openTo (personal_sign for the dev accounts under --dev). */
  openTo?: (ctx: Ctx, args: Decoded<C>) => boolean;
}): RpcMethod<Ctx> {
  const handler = def.handler;
  const openTo = def.openTo;
  return {
    name: def.name,
    ...(openTo ? { openTo: (ctx: Ctx, args: unknown[]) => openTo(ctx, args as Decoded<C>) } : {}),
    decode: (params) => decodeParams(params, def.params),
    run:
      def.hexResult === true
        ? (ctx, args, meta) => {
            const r = handler(ctx, args as Decoded<C>, meta);
            return typeof r === 'string' ? new PlainString(r) : r;
          }
        : (ctx, args, meta) => handler(ctx, args as Decoded<C>, meta),
  };
}
