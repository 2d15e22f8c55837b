// eth_simulateV1's payload (geth's simOpts): blocks of calls, each with optional block and state overrides.
import type { CallRequest } from '../../primitives/callRequest.ts';
import type { BlockOverrides, StateOverrides } from '../../primitives/overrides.ts';
import { callRequest } from './callRequest.ts';
import type { Codec } from './codec.ts';
import { codec } from './codec.ts';
import { UnmarshalTypeError, atField, bool, jsonKind } from './data.ts';
import { blockOverrides, stateOverrides } from './overrides.ts';

/** One simulated block as asked for. */
export interface SimBlockRequest {
  blockOverrides?: BlockOverrides;
  stateOverrides?: StateOverrides;
  calls: CallRequest[];
}

/** The decoded eth_simulateV1 payload. */
export interface SimulateRequest {
  blockStateCalls: SimBlockRequest[];
  traceTransfers: boolean;
  validation: boolean;
  returnFullTransactions: boolean;
}

type Obj = Record<string, unknown>;
const isObject = (raw: unknown): raw is Obj => typeof raw === 'object' && raw !== null && !Array.isArray(raw);

function field<T>(obj: Obj, key: string, c: Codec<T>, struct: string): T | undefined {
  const raw = Object.hasOwn(obj, key) ? obj[key] : undefined;
  if (raw === undefined || raw === null) return undefined;
  try {
    return c.decode(raw);
  } catch (e) {
    throw atField(e, `${struct}.${key}`);
  }
}

const calls: Codec<CallRequest[]> = codec((raw) => {
  if (!Array.isArray(raw)) throw new UnmarshalTypeError(jsonKind(raw), '[]ethapi.TransactionArgs');
  return raw.map((c: unknown) => callRequest.decode(c));
});

const simBlock: Codec<SimBlockRequest> = codec((raw) => {
  const struct = 'ethapi.simBlock';
  if (!isObject(raw)) throw new UnmarshalTypeError(jsonKind(raw), struct);
  const out: SimBlockRequest = { calls: field(raw, 'calls', calls, struct) ?? [] };
  const b = field(raw, 'blockOverrides', blockOverrides, struct);
  const s = field(raw, 'stateOverrides', stateOverrides, struct);
  if (b !== undefined) out.blockOverrides = b;
  if (s !== undefined) out.stateOverrides = s;
  return out;
});

const simBlocks: Codec<SimBlockRequest[]> = codec((raw) => {
  if (!Array.isArray(raw)) throw new UnmarshalTypeError(jsonKind(raw), '[]ethapi.simBlock');
  return raw.map((b: unknown) => simBlock.decode(b));
});

/** `{blockStateCalls: [...], traceTransfers?, validation?, returnFullTransactions?}`. */
export const simulateRequest: Codec<SimulateRequest> = codec((raw) => {
  const struct = 'ethapi.simOpts';
  if (!isObject(raw)) throw new UnmarshalTypeError(jsonKind(raw), struct);
  return {
    blockStateCalls: field(raw, 'blockStateCalls', simBlocks, struct) ?? [],
    traceTransfers: field(raw, 'traceTransfers', bool, struct) ?? false,
    validation: field(raw, 'validation', bool, struct) ?? false,
    returnFullTransactions: field(raw, 'returnFullTransactions', bool, struct) ?? false,
  };
});
