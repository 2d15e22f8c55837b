// eth_getStorageValues' request: a map from address to the storage slots wanted there.
import { InvalidParamsError } from '../../errors/index.ts';
import type { Codec } from './codec.ts';
import { ParamError, codec } from './codec.ts';
import { UnmarshalTypeError, address, jsonKind, storageSlot } from './data.ts';

/** Slots one eth_getStorageValues request may read in total (bounds the work a single request can ask for). */
export const MAX_STORAGE_VALUES = 1024;

/** One address of the request with its slots, in request order. */
export interface StorageRequest {
  address: Uint8Array;
  slots: Uint8Array[];
}

/** `{"0x<address>": ["0x<slot>", …], …}`: not empty, at most MAX_STORAGE_VALUES slots in all. */
export const storageRequests: Codec<StorageRequest[]> = codec((raw) => {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new UnmarshalTypeError(jsonKind(raw), 'map[common.Address][]common.Hash');
  }
  const out: StorageRequest[] = [];
  let total = 0;
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    const addr = address.decode(key);
    if (!Array.isArray(value)) throw new UnmarshalTypeError(jsonKind(value), '[]common.Hash');
    total += value.length;
    if (total > MAX_STORAGE_VALUES) throw new ParamError(`too many slots (max ${MAX_STORAGE_VALUES})`);
    out.push({ address: addr, slots: value.map((s: unknown) => storageSlot.decode(s)) });
  }
  // geth reports this one without the "invalid argument 0" prefix.
  if (out.length === 0) throw new InvalidParamsError('empty request');
  return out;
});
