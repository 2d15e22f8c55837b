// The transaction call object codec (eth_call, eth_estimateGas, eth_sendTransaction, …), after geth's
// TransactionArgs: absent and null fields stay undefined, unknown fields are ignored.
import type { AccessListItem, CallRequest } from '../../primitives/callRequest.ts';
import { bytesEqual } from '../../primitives/hex.ts';
import type { Codec } from './codec.ts';
import { ParamError, codec } from './codec.ts';
import {
  UnmarshalTypeError,
  address,
  atField,
  bytes,
  hash32,
  isJsonObject,
  jsonKind,
  structField,
  structValue,
  type JsonObject,
} from './data.ts';
import { uint256, uint64 } from './quantity.ts';

const STRUCT = 'TransactionArgs';

/** Decodes obj[key] with `c` unless absent or null; errors name the field path. */
function field<T>(obj: JsonObject, key: string, c: Codec<T>, value: unknown): T | undefined {
  return structValue(obj, key, value, c, STRUCT);
}

/** Decodes one access list entry {address, storageKeys}; both keys are required, as in geth's AccessTuple. */
function accessTuple(raw: unknown): AccessListItem {
  if (!isJsonObject(raw)) throw new UnmarshalTypeError(jsonKind(raw), 'types.AccessTuple', `${STRUCT}.accessList`);
  const addr = structField(raw, 'address', address, STRUCT, 'accessList.address');
  if (addr === undefined) throw new ParamError("missing required field 'address' for AccessTuple");
  if (!Object.hasOwn(raw, 'storageKeys') || raw['storageKeys'] === null) {
    throw new ParamError("missing required field 'storageKeys' for AccessTuple");
  }
  const keys: unknown = raw['storageKeys'];
  if (!Array.isArray(keys)) {
    throw new UnmarshalTypeError(jsonKind(keys), '[]common.Hash', `${STRUCT}.accessList.storageKeys`);
  }
  const storageKeys = keys.map((k: unknown) => {
    try {
      return hash32.decode(k);
    } catch (e) {
      throw atField(e, `${STRUCT}.accessList.storageKeys`);
    }
  });
  return { address: addr, storageKeys };
}

/** Decodes the accessList field (absent/null → undefined). */
function accessList(obj: JsonObject): AccessListItem[] | undefined {
  if (!Object.hasOwn(obj, 'accessList') || obj['accessList'] === null) return undefined;
  const raw = obj['accessList'];
  if (!Array.isArray(raw)) throw new UnmarshalTypeError(jsonKind(raw), 'types.AccessList', `${STRUCT}.accessList`);
  return raw.map(accessTuple);
}

/** A transaction call object → CallRequest; `gasLimit` aliases `gas`, `input` wins over an equal `data`. */
export const callRequest: Codec<CallRequest> = codec((raw) => {
  if (!isJsonObject(raw)) throw new UnmarshalTypeError(jsonKind(raw), `ethapi.${STRUCT}`);
  const gas = field(raw, 'gas', uint64, raw.gas);
  const gasLimit = field(raw, 'gasLimit', uint64, raw.gasLimit);
  if (gas !== undefined && gasLimit !== undefined && gas !== gasLimit) {
    throw new ParamError('both "gas" and "gasLimit" are set and not equal');
  }
  const data = field(raw, 'data', bytes, raw.data);
  const input = field(raw, 'input', bytes, raw.input);
  if (data !== undefined && input !== undefined && !bytesEqual(data, input)) {
    throw new ParamError(
      'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data',
    );
  }
  // Decoded in geth's field order (the first bad field is the one reported), then the fee check.
  const from = field(raw, 'from', address, raw.from);
  const to = field(raw, 'to', address, raw.to);
  const gasPrice = field(raw, 'gasPrice', uint256, raw.gasPrice);
  const maxFeePerGas = field(raw, 'maxFeePerGas', uint256, raw.maxFeePerGas);
  const maxPriorityFeePerGas = field(raw, 'maxPriorityFeePerGas', uint256, raw.maxPriorityFeePerGas);
  const value = field(raw, 'value', uint256, raw.value);
  const nonce = field(raw, 'nonce', uint64, raw.nonce);
  const list = accessList(raw);
  const type = field(raw, 'type', uint64, raw.type);
  const chainId = field(raw, 'chainId', uint256, raw.chainId);
  if (gasPrice !== undefined && (maxFeePerGas !== undefined || maxPriorityFeePerGas !== undefined)) {
    throw new ParamError('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified');
  }
  // Only the fields present, added rather than deleted (deleting properties turns an object into a slow
  // dictionary, and every consumer of the request reads its fields), straight into the result: no second object.
  const req: CallRequest = {};
  if (from !== undefined) req.from = from;
  if (to !== undefined) req.to = to;
  const g = gas ?? gasLimit;
  if (g !== undefined) req.gas = g;
  if (gasPrice !== undefined) req.gasPrice = gasPrice;
  if (maxFeePerGas !== undefined) req.maxFeePerGas = maxFeePerGas;
  if (maxPriorityFeePerGas !== undefined) req.maxPriorityFeePerGas = maxPriorityFeePerGas;
  if (value !== undefined) req.value = value;
  const d = input ?? data;
  if (d !== undefined) req.data = d;
  if (nonce !== undefined) req.nonce = nonce;
  if (list !== undefined) req.accessList = list;
  if (type !== undefined) req.type = type;
  if (chainId !== undefined) req.chainId = chainId;
  return req;
});
