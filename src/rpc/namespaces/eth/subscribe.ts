// eth_subscribe / eth_unsubscribe over WebSocket (https://geth.ethereum.org/docs/interacting-with-geth/rpc/pubsub).
import { NotificationsUnsupportedError } from '../../../errors/index.ts';
import type { Needs } from '../../context.ts';
import { defineMethod } from '../../method.ts';
import { anyJson, decodeSubscription, filterId, optional, string } from '../../params/index.ts';

/** What these methods use. */
type Ctx = Needs<'subscriptions'>;

/** Handler for eth_subscribe: newHeads, logs [filter], newPendingTransactions [fullTx], syncing. */
export const subscribe = defineMethod({
  name: 'eth_subscribe',
  params: [string, optional(anyJson)],
  handler: (ctx: Ctx, [name, options], meta) => {
    if (!meta?.connection) throw new NotificationsUnsupportedError();
    return ctx.subscriptions.subscribe(meta.connection, decodeSubscription(name, options));
  },
});

/** Handler for eth_unsubscribe: true when the subscription belonged to this connection. */
export const unsubscribe = defineMethod({
  name: 'eth_unsubscribe',
  params: [filterId],
  handler: (ctx: Ctx, [id], meta) => {
    if (!meta?.connection) throw new NotificationsUnsupportedError();
    return ctx.subscriptions.unsubscribe(meta.connection, id);
  },
});

export const subscribeMethods = [subscribe, unsubscribe];
