// eth_getLogs over the log index (https://ethereum.github.io/execution-apis/api-documentation/ eth_getLogs).
// Forked, the part of the range at or below the fork block is the upstream's logs (asked for with the same filter).
import type { ForkHistory } from '../../../app/fork/history.ts';
import { quantity } from '../../../app/fork/history.ts';
import type { LogCriteria } from '../../../filters/criteria.ts';
import { bytesToHex } from '../../../primitives/hex.ts';
import type { Needs } from '../../context.ts';
import { formatLogEntry } from '../../format/log.ts';
import { defineMethod } from '../../method.ts';
import { logFilter } from '../../params/index.ts';
import { upstreamHash } from './forkHistory.ts';

/** What these methods use. */
type Ctx = Needs<'logs' | 'calls' | 'chain'>;

/** Handler for eth_getLogs (range or EIP-234 blockHash; capped by block-range-cap and logs-cap). */
export const getLogs = defineMethod({
  name: 'eth_getLogs',
  params: [logFilter],
  handler: (ctx: Ctx, [criteria]) => {
    const history = ctx.calls.upstream?.history;
    if (history === undefined) return ctx.logs.getLogs(criteria).map(formatLogEntry);
    return forkedLogs(ctx, history, criteria);
  },
});

/** The filter's address and topic constraints as the upstream takes them. */
function matchJson(c: LogCriteria): Record<string, unknown> {
  return {
    address: c.addresses.map(bytesToHex),
    topics: c.topics.map((t) => (t === null ? null : t.map(bytesToHex))),
  };
}

/** A forked chain's logs: the upstream's up to the fork block, then the local chain's. */
async function forkedLogs(ctx: Ctx, history: ForkHistory, c: LogCriteria): Promise<unknown[]> {
  if (c.blockHash !== undefined) {
    if (upstreamHash(ctx, c.blockHash) === undefined) return ctx.logs.getLogs(c).map(formatLogEntry);
    return history.logs({ ...matchJson(c), blockHash: bytesToHex(c.blockHash) });
  }
  const { from, to } = ctx.logs.resolveRange(c.fromBlock, c.toBlock);
  const out: unknown[] = [];
  if (history.isUpstream(from)) {
    const upTo = history.isUpstream(to) ? to : history.forkNumber;
    out.push(...(await history.logs({ ...matchJson(c), fromBlock: quantity(from), toBlock: quantity(upTo) })));
  }
  if (!history.isUpstream(to)) {
    const first = history.isUpstream(from) ? history.forkNumber + 1n : from;
    const local: LogCriteria = {
      ...c,
      fromBlock: { kind: 'number', number: first },
      toBlock: { kind: 'number', number: to },
    };
    out.push(...ctx.logs.getLogs(local).map(formatLogEntry));
  }
  return out;
}

export const logMethods = [getLogs];
