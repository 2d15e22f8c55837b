// The txpool namespace, in geth's shapes (https://geth.ethereum.org/docs/interacting-with-geth/rpc/ns-txpool).
// Reads the pool only; it must not import consensus or the app.
import { toQuantity } from '../../../primitives/hex.ts';
import type { Needs } from '../../context.ts';
import { defineMethod, type RpcMethod } from '../../method.ts';
import { address } from '../../params/index.ts';
import { contentTx, inspectTx, poolMaps, senderMaps } from './format.ts';

/** What these methods use. */
type Ctx = Needs<'pool'>;

/** Handler for txpool_status: the number of pending and queued txs. */
export const status = defineMethod({
  name: 'txpool_status',
  params: [],
  handler: (ctx: Ctx) => {
    const c = ctx.pool.counts();
    return { pending: toQuantity(c.pending), queued: toQuantity(c.queued) };
  },
});

/** Handler for txpool_content: every pooled tx by sender and nonce. */
export const content = defineMethod({
  name: 'txpool_content',
  params: [],
  handler: (ctx: Ctx) => poolMaps(ctx.pool.content(), contentTx),
});

/** Handler for txpool_contentFrom: one sender's pooled txs by nonce. */
export const contentFrom = defineMethod({
  name: 'txpool_contentFrom',
  params: [address],
  handler: (ctx: Ctx, [addr]) => senderMaps(ctx.pool.contentFrom(addr)),
});

/** Handler for txpool_inspect: geth's one-line summary of every pooled tx. */
export const inspect = defineMethod({
  name: 'txpool_inspect',
  params: [],
  handler: (ctx: Ctx) => poolMaps(ctx.pool.content(), inspectTx),
});

/** All txpool_ methods. */
export const txpoolNamespace: RpcMethod<Ctx>[] = [status, content, contentFrom, inspect];
