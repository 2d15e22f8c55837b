// keccak-256 for the engine and its tools: hash-wasm's WebAssembly keccak (about 5x faster than the pure-JS
// one, ../shared/REFERENCE-ENGINE.md §1), synchronous once `initKeccak()` has resolved.
import { createKeccak, type IHasher } from 'hash-wasm';

// One hasher serves every caller: a call runs init/update/digest without yielding, so calls never interleave.
let hasher: IHasher | undefined;
let pending: Promise<void> | undefined;

/** Loads the WebAssembly hasher; call (and await) once before the first {@link keccak256}. Idempotent. */
export function initKeccak(): Promise<void> {
  pending ??= createKeccak(256).then((h) => {
    hasher = h;
  });
  return pending;
}

/** keccak-256 of `data` (a fresh 32-byte array). Throws when {@link initKeccak} has not completed. */
export function keccak256(data: Uint8Array): Uint8Array {
  if (hasher === undefined) throw new Error('keccak256 used before initKeccak() resolved');
  hasher.init();
  hasher.update(data);
  return hasher.digest('binary');
}
