// Parity traces → the JSON Anvil and OpenEthereum answer: hex quantities, lower-case addresses, a numeric
// blockNumber and transactionPosition.
import { bytesToHex, toQuantity } from '../../../primitives/hex.ts';
import type { ParityAction, ParityOutcome, ParityTrace } from '../../../tracing/parityTracer.ts';

type Json = Record<string, unknown>;

/** Where a transaction's traces sit in the chain (absent for trace_call and the replay methods). */
export interface TraceLocation {
  blockHash: Uint8Array;
  blockNumber: bigint;
  transactionHash: Uint8Array;
  transactionPosition: number;
}

function action(a: ParityAction): Json {
  switch (a.kind) {
    case 'call':
      return {
        from: bytesToHex(a.from),
        callType: a.callType,
        gas: toQuantity(a.gas),
        input: bytesToHex(a.input),
        to: bytesToHex(a.to),
        value: toQuantity(a.value),
      };
    case 'create':
      return {
        from: bytesToHex(a.from),
        gas: toQuantity(a.gas),
        init: bytesToHex(a.init),
        value: toQuantity(a.value),
        creationMethod: a.creationMethod,
      };
    case 'suicide':
      return {
        address: bytesToHex(a.address),
        balance: toQuantity(a.balance),
        refundAddress: bytesToHex(a.refundAddress),
      };
  }
}

function outcome(r: ParityOutcome | undefined): Json | null {
  if (r === undefined) return null;
  if (r.kind === 'call') return { gasUsed: toQuantity(r.gasUsed), output: bytesToHex(r.output) };
  return { address: bytesToHex(r.address), code: bytesToHex(r.code), gasUsed: toQuantity(r.gasUsed) };
}

/** The entry type Parity names: call, create or suicide. */
function entryType(t: ParityTrace): string {
  return t.action.kind;
}

/** One transaction's traces as trace_replay* lists them (no location fields). */
export function formatParityTraces(traces: ParityTrace[]): Json[] {
  return traces.map((t) => {
    const o: Json = { type: entryType(t), action: action(t.action) };
    if (t.error !== undefined) o.error = t.error;
    o.result = outcome(t.result);
    o.subtraces = t.subtraces;
    o.traceAddress = t.traceAddress;
    return o;
  });
}

/** One trace with its location, as trace_transaction / trace_block / trace_filter list them. */
export function formatLocatedTrace(t: ParityTrace, at: TraceLocation): Json {
  const o: Json = {
    action: action(t.action),
    blockHash: bytesToHex(at.blockHash),
    blockNumber: Number(at.blockNumber),
  };
  if (t.error !== undefined) o.error = t.error;
  o.result = outcome(t.result);
  o.subtraces = t.subtraces;
  o.traceAddress = t.traceAddress;
  o.transactionHash = bytesToHex(at.transactionHash);
  o.transactionPosition = at.transactionPosition;
  o.type = entryType(t);
  return o;
}

/** The top frame's output (trace_replay*'s "output"). */
export function topOutput(traces: ParityTrace[]): string {
  const top = traces[0]?.result;
  if (top === undefined) return '0x';
  return bytesToHex(top.kind === 'call' ? top.output : top.code);
}
