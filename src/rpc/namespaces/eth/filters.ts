// Polling filters (https://ethereum.github.io/execution-apis/api-documentation/ eth_newFilter and friends).
import type { FilterChanges } from '../../../filters/filterManager.ts';
import { bytesToHex } from '../../../primitives/hex.ts';
import type { Needs } from '../../context.ts';
import { formatLogEntry, formatPendingTx } from '../../format/log.ts';
import { defineMethod } from '../../method.ts';
import { bool, filterId, logFilter, optional } from '../../params/index.ts';

/** What these methods use. */
type Ctx = Needs<'filters'>;

function formatChanges(c: FilterChanges): unknown[] {
  switch (c.kind) {
    case 'logs':
      return c.logs.map(formatLogEntry);
    case 'hashes':
      return c.hashes.map((h) => bytesToHex(h));
    case 'txs':
      return c.txs.map(formatPendingTx);
  }
}

/** Handler for eth_newFilter. */
export const newFilter = defineMethod({
  name: 'eth_newFilter',
  params: [logFilter],
  handler: (ctx: Ctx, [criteria]) => ctx.filters.newLogFilter(criteria),
});

/** Handler for eth_newBlockFilter. */
export const newBlockFilter = defineMethod({
  name: 'eth_newBlockFilter',
  params: [],
  handler: (ctx: Ctx) => ctx.filters.newBlockFilter(),
});

/** Handler for eth_newPendingTransactionFilter (geth's optional fullTx flag included). */
export const newPendingTransactionFilter = defineMethod({
  name: 'eth_newPendingTransactionFilter',
  params: [optional(bool, () => false)],
  handler: (ctx: Ctx, [fullTx]) => ctx.filters.newPendingTxFilter(fullTx),
});

/** Handler for eth_getFilterChanges. */
export const getFilterChanges = defineMethod({
  name: 'eth_getFilterChanges',
  params: [filterId],
  handler: (ctx: Ctx, [id]) => formatChanges(ctx.filters.changes(id)),
});

/** Handler for eth_getFilterLogs. */
export const getFilterLogs = defineMethod({
  name: 'eth_getFilterLogs',
  params: [filterId],
  handler: (ctx: Ctx, [id]) => ctx.filters.filterLogs(id).map(formatLogEntry),
});

/** Handler for eth_uninstallFilter. */
export const uninstallFilter = defineMethod({
  name: 'eth_uninstallFilter',
  params: [filterId],
  handler: (ctx: Ctx, [id]) => ctx.filters.uninstall(id),
});

export const filterMethods = [
  newFilter,
  newBlockFilter,
  newPendingTransactionFilter,
  getFilterChanges,
  getFilterLogs,
  uninstallFilter,
];
