// Parity traces → Otterscan's shapes, as Anvil derives them: internal operations (value transfers, creations,
// selfdestructs), the call-only trace list, and whether a trace touches an address (for the address searches).
import { bytesEqual, bytesToHex, toQuantity } from '../../../primitives/hex.ts';
import type { ParityTrace } from '../../../tracing/types.ts';

type Json = Record<string, unknown>;

/** Otterscan's operation types: 0 transfer, 1 selfdestruct, 2 create, 3 create2. */
const OP_TRANSFER = 0;
const OP_SELFDESTRUCT = 1;
const OP_CREATE = 2;
const OP_CREATE2 = 3;

/** ots_getInternalOperations: every value-carrying CALL (the top one included), creation and selfdestruct. */
export function internalOperations(traces: ParityTrace[]): Json[] {
  // A frame that ran SELFDESTRUCT is reported as the selfdestruct alone, not also as a transfer (as Anvil does).
  const destroyed = new Set<string>();
  for (const t of traces) if (t.action.kind === 'suicide') destroyed.add(t.traceAddress.slice(0, -1).join('.'));
  const out: Json[] = [];
  for (const t of traces) {
    const a = t.action;
    if (a.kind === 'call') {
      if (a.callType !== 'call' || a.value === 0n || destroyed.has(t.traceAddress.join('.'))) continue;
      out.push({ type: OP_TRANSFER, from: bytesToHex(a.from), to: bytesToHex(a.to), value: toQuantity(a.value) });
    } else if (a.kind === 'create') {
      // A failed creation has no address: Anvil reports the zero address then.
      const to = t.result?.kind === 'create' ? bytesToHex(t.result.address) : '0x' + '00'.repeat(20);
      const type = a.creationMethod === 'create2' ? OP_CREATE2 : OP_CREATE;
      out.push({ type, from: bytesToHex(a.from), to, value: toQuantity(a.value) });
    } else {
      out.push({
        type: OP_SELFDESTRUCT,
        from: bytesToHex(a.address),
        to: bytesToHex(a.refundAddress),
        value: toQuantity(a.balance),
      });
    }
  }
  return out;
}

/** ots_traceTransaction: the call frames (Anvil lists no creations or selfdestructs), depth from traceAddress. */
export function callEntries(traces: ParityTrace[]): Json[] {
  const out: Json[] = [];
  for (const t of traces) {
    const a = t.action;
    if (a.kind !== 'call') continue;
    out.push({
      type: a.callType.toUpperCase(),
      depth: t.traceAddress.length,
      from: bytesToHex(a.from),
      to: bytesToHex(a.to),
      value: toQuantity(a.value),
      input: bytesToHex(a.input),
      output: bytesToHex(t.result?.kind === 'call' ? t.result.output : new Uint8Array(0)),
    });
  }
  return out;
}

/** True when a trace's caller or callee (the created contract, the selfdestructed one or its heir) is `addr`. */
export function touches(t: ParityTrace, addr: Uint8Array): boolean {
  const a = t.action;
  if (a.kind === 'call') return bytesEqual(a.from, addr) || bytesEqual(a.to, addr);
  if (a.kind === 'suicide') return bytesEqual(a.address, addr) || bytesEqual(a.refundAddress, addr);
  return bytesEqual(a.from, addr) || (t.result?.kind === 'create' && bytesEqual(t.result.address, addr));
}
