// The net namespace.
import type { Needs } from '../../context.ts';
import { defineMethod, type RpcMethod } from '../../method.ts';

/** What these methods use. */
type Ctx = Needs<'config'>;

/** net_ methods: version is the decimal EIP-155 id; a solo node has no peers. */
export const netNamespace: RpcMethod<Ctx>[] = [
  defineMethod({ name: 'net_version', params: [], handler: (ctx: Ctx) => ctx.config.evmChainId.toString() }),
  defineMethod({ name: 'net_listening', params: [], handler: () => true }),
  defineMethod({ name: 'net_peerCount', params: [], handler: () => '0x0' }),
];
