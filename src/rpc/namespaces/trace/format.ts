// Parity traces → the JSON Anvil and OpenEthereum answer: hex quantities, lower-case addresses, a numeric
// blockNumber and transactionPosition.
import { bytesToHex, toQuantity } from '../../../primitives/hex.ts';
import type { ParityAction, ParityOutcome, ParityTrace, PrestateAccount, PrestateMap } from '../../../tracing/types.ts';

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

const NO_CODE = new Uint8Array(0);
const ZERO_WORD = '0x' + '00'.repeat(32);

/** One field's change as OpenEthereum writes it: "=" unchanged, {"*": {from, to}} changed, "+"/"-" born/died. */
function delta(from: string | undefined, to: string | undefined): unknown {
  if (from === undefined) return { '+': to };
  if (to === undefined) return { '-': from };
  return from === to ? '=' : { '*': { from, to } };
}

/**
 * trace_replay*'s stateDiff from geth's prestate diff: `pre` holds the changed accounts as they were (no entry: the
 * account did not exist) with their changed non-zero slots, `post` the changed fields and non-zero slots after (no
 * entry: the account was destroyed).
 */
export function formatStateDiff(pre: PrestateMap, post: PrestateMap): Json {
  const out: Json = {};
  const keys = [...new Set([...pre.keys(), ...post.keys()])].sort();
  for (const key of keys) {
    const before: PrestateAccount | undefined = pre.get(key)?.[1];
    const after: PrestateAccount | undefined = post.get(key)?.[1];
    const born = before === undefined;
    const died = after === undefined;
    const field = (b: string, a: string | undefined) => delta(born ? undefined : b, died ? undefined : (a ?? b));
    const storage: Json = {};
    const slots = new Set([...(before?.storage?.keys() ?? []), ...(after?.storage?.keys() ?? [])]);
    for (const s of [...slots].sort()) {
      const slot = (before?.storage?.get(s) ?? after?.storage?.get(s))![0];
      const b = before?.storage?.get(s);
      const a = after?.storage?.get(s);
      const from = b ? bytesToHex(b[1]) : ZERO_WORD;
      const to = a ? bytesToHex(a[1]) : ZERO_WORD;
      storage[bytesToHex(slot)] = delta(born ? undefined : from, died ? undefined : to);
    }
    out['0x' + key] = {
      balance: field(
        toQuantity(before?.balance ?? 0n),
        after?.balance !== undefined ? toQuantity(after.balance) : born ? '0x0' : undefined,
      ),
      code: field(
        bytesToHex(before?.code ?? NO_CODE),
        after?.code !== undefined ? bytesToHex(after.code) : born ? '0x' : undefined,
      ),
      nonce: field(
        toQuantity(before?.nonce ?? 0n),
        after?.nonce !== undefined ? toQuantity(after.nonce) : born ? '0x0' : undefined,
      ),
      storage,
    };
  }
  return out;
}
