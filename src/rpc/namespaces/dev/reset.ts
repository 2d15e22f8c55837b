// anvil_reset / hardhat_reset: back to the chain's first block, or (with `forking`) re-forked from another upstream
// block. Anvil answers null and Hardhat true; both take `{forking: {jsonRpcUrl, blockNumber}}`, either field
// optional here (the current upstream, its latest block). And anvil_setLoggingEnabled, the node log's switch.
import { MethodNotFoundError } from '../../../errors/index.ts';
import type { Needs } from '../../context.ts';
import { defineMethod, type RpcMethod } from '../../method.ts';
import { ParamError, codec, optional, type Codec } from '../../params/codec.ts';
import { bool } from '../../params/data.ts';
import { u64 } from './params.ts';

/** What these methods use. */
type Ctx = Needs<'dev' | 'nodeLog'>;

/** The decoded reset request: undefined = back to the first block. */
type Refork = { url?: string; blockNumber?: bigint } | undefined;

const resetParams: Codec<Refork> = codec((raw) => {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ParamError('expected an object');
  const o = raw as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== 'forking') throw new ParamError(`unknown field "${k}"`);
  const f = o['forking'];
  if (f === undefined || f === null) return undefined;
  if (typeof f !== 'object' || Array.isArray(f)) throw new ParamError('forking: expected an object');
  const forking = f as Record<string, unknown>;
  for (const k of Object.keys(forking)) {
    if (k !== 'jsonRpcUrl' && k !== 'blockNumber') throw new ParamError(`forking: unknown field "${k}"`);
  }
  const url = forking['jsonRpcUrl'];
  if (url !== undefined && (typeof url !== 'string' || !/^https?:\/\//.test(url))) {
    throw new ParamError('forking.jsonRpcUrl: expected an http(s) URL');
  }
  const n = forking['blockNumber'];
  return {
    ...(url === undefined ? {} : { url }),
    ...(n === undefined || n === null ? {} : { blockNumber: u64.decode(n) }),
  };
});

/** anvil_setLoggingEnabled(bool): null; off mutes the node's info lines until turned on again (Anvil's). */
const setLoggingEnabled = defineMethod({
  name: 'anvil_setLoggingEnabled',
  params: [bool],
  handler: (ctx: Ctx, [on]) => {
    if (!ctx.dev || !ctx.nodeLog) throw new MethodNotFoundError('anvil_setLoggingEnabled');
    ctx.nodeLog.setEnabled(on);
    return null;
  },
});

const resets: RpcMethod<Ctx>[] = (['anvil', 'hardhat'] as const).map((p) =>
  defineMethod({
    name: `${p}_reset`,
    params: [optional(resetParams)],
    handler: async (ctx: Ctx, [refork]) => {
      if (!ctx.dev) throw new MethodNotFoundError(`${p}_reset`);
      await ctx.dev.reset(refork);
      return p === 'hardhat' ? true : null;
    },
  }),
);

export const resetMethods: RpcMethod<Ctx>[] = [...resets, setLoggingEnabled];
