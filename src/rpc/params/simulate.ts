// eth_simulateV1's payload (geth's simOpts): blocks of calls, each with optional block and state overrides.
import type { CallRequest } from '../../primitives/callRequest.ts';
import type { BlockOverrides, StateOverrides } from '../../primitives/overrides.ts';
import { callRequest } from './callRequest.ts';
import type { Codec } from './codec.ts';
import { codec } from './codec.ts';
import { UnmarshalTypeError, array, bool, isJsonObject, jsonKind, structField } from './data.ts';
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

const calls: Codec<CallRequest[]> = array(callRequest, { goType: '[]ethapi.TransactionArgs' });

const simBlock: Codec<SimBlockRequest> = codec((raw) => {
  const struct = 'ethapi.simBlock';
  if (!isJsonObject(raw)) throw new UnmarshalTypeError(jsonKind(raw), struct);
  const out: SimBlockRequest = { calls: structField(raw, 'calls', calls, struct) ?? [] };
  const b = structField(raw, 'blockOverrides', blockOverrides, struct);
  const s = structField(raw, 'stateOverrides', stateOverrides, struct);
  if (b !== undefined) out.blockOverrides = b;
  if (s !== undefined) out.stateOverrides = s;
  return out;
});

const simBlocks: Codec<SimBlockRequest[]> = array(simBlock, { goType: '[]ethapi.simBlock' });

/** `{blockStateCalls: [...], traceTransfers?, validation?, returnFullTransactions?}`. */
export const simulateRequest: Codec<SimulateRequest> = codec((raw) => {
  const struct = 'ethapi.simOpts';
  if (!isJsonObject(raw)) throw new UnmarshalTypeError(jsonKind(raw), struct);
  return {
    blockStateCalls: structField(raw, 'blockStateCalls', simBlocks, struct) ?? [],
    traceTransfers: structField(raw, 'traceTransfers', bool, struct) ?? false,
    validation: structField(raw, 'validation', bool, struct) ?? false,
    returnFullTransactions: structField(raw, 'returnFullTransactions', bool, struct) ?? false,
  };
});
