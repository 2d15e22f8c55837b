// eth_getLogs over the log index (https://ethereum.github.io/execution-apis/api-documentation/ eth_getLogs).
import type { Needs } from '../../context.ts';
import { formatLogEntry } from '../../format/log.ts';
import { defineMethod } from '../../method.ts';
import { logFilter } from '../../params/index.ts';

/** What these methods use. */
type Ctx = Needs<'logs'>;

/** Handler for eth_getLogs (range or EIP-234 blockHash; capped by block-range-cap and logs-cap). */
export const getLogs = defineMethod({
  name: 'eth_getLogs',
  params: [logFilter],
  handler: (ctx: Ctx, [criteria]) => ctx.logs.getLogs(criteria).map(formatLogEntry),
});

export const logMethods = [getLogs];
