// The miner namespace (private: the registry wants the bearer token). Kestrel is proof of stake, so only the
// settings that mean something here work: the gas price floor (app.toml, at restart) and the etherbase.
// https://geth.ethereum.org/docs/interacting-with-geth/rpc/ns-miner
import { KestrelError } from '../../../errors/index.ts';
import type { Needs } from '../../context.ts';
import { defineMethod, type RpcMethod } from '../../method.ts';
import { address, codec, optional, string, uint256 } from '../../params/index.ts';
import { unsupported } from './unsupported.ts';

/** What these methods use. */
type Ctx = Needs<'config' | 'miner'>;

/** geth's cap on header extra data. */
const MAX_EXTRA_BYTES = 32;
const anything = optional(codec((raw: unknown) => raw));

/** Handler for miner_getHashrate: always 0 (there is no proof of work). */
export const getHashrate = defineMethod({ name: 'miner_getHashrate', params: [], handler: () => 0 });

/** Handler for miner_setExtra: geth's length error first, then unsupported (-32004). */
export const setExtra = defineMethod({
  name: 'miner_setExtra',
  params: [string],
  handler: (_ctx: Ctx, [extra]) => {
    const len = Buffer.byteLength(extra, 'utf8');
    if (len > MAX_EXTRA_BYTES) throw new KestrelError(`extra exceeds max length. ${len} > ${MAX_EXTRA_BYTES}`);
    throw unsupported('miner_setExtra');
  },
});

/** Handler for miner_setGasPrice: writes minimum-gas-prices to app.toml; effective at the next start. */
export const setGasPrice = defineMethod({
  name: 'miner_setGasPrice',
  params: [uint256],
  handler: (ctx: Ctx, [price]) => {
    ctx.miner.setGasPrice(price);
    return true;
  },
});

/** Handler for miner_start: unsupported (-32004). */
export const start = defineMethod({
  name: 'miner_start',
  params: [anything],
  handler: () => {
    throw unsupported('miner_start');
  },
});

/** Handler for miner_stop: null, no effect (blocks keep coming; stopping them would halt the chain). */
export const stop = defineMethod({ name: 'miner_stop', params: [], handler: () => null });

/** Handler for miner_setGasLimit: false (the block gas limit is a chain parameter, not a producer's choice). */
export const setGasLimit = defineMethod({ name: 'miner_setGasLimit', params: [uint256], handler: () => false });

/**
 * Handler for miner_setEtherbase: fees of the next blocks go to the address; persisted in app.toml [miner]. Under
 * CometBFT the coinbase comes from genesis (it must be the same on every validator): -32004 with that reason.
 */
export const setEtherbase = defineMethod({
  name: 'miner_setEtherbase',
  params: [address],
  handler: (ctx: Ctx, [addr]) => {
    if (ctx.config.consensus === 'cometbft') throw unsupported('miner_setEtherbase');
    ctx.miner.setEtherbase(addr);
    return true;
  },
});

/** All miner_ methods. */
export const minerNamespace: RpcMethod<Ctx>[] = [
  getHashrate,
  setExtra,
  setGasPrice,
  start,
  stop,
  setGasLimit,
  setEtherbase,
];
