// The `reason` label of refused transactions: the error's typed reason (a closed set, so the number of series
// stays bounded whatever a client sends), in Prometheus' snake_case.
import { TxRejectedError } from '../errors/index.ts';

/** The label of an admission error ("internal" for anything that is not a refusal). */
export function rejectReason(e: unknown): string {
  if (!(e instanceof TxRejectedError)) return 'internal';
  return e.reason.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
