// keccak-256 for the engine and its tools: hash-wasm's WebAssembly keccak (about 5x faster than the pure-JS
// one, ../shared/REFERENCE-ENGINE.md §1), synchronous once `initKeccak()` has resolved.
//
// The engine calls hash-wasm's compiled module directly: its IHasher wraps every hash in a type check and three
// typed-array allocations (the input view, the update view, the digest copy), as much time as the permutation itself
// for a 64-byte input (an ERC20 mapping slot). The module is the library's own (the sha3 build its dist embeds),
// instantiated once more here; it is checked against known digests at start, and the IHasher serves if it cannot be
// loaded or does not match.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createKeccak, type IHasher } from 'hash-wasm';
import { bytesToBigint, wordOfView } from '../primitives/bytes.ts';

/** hash-wasm's input buffer size (MAIN_BUFFER_SIZE in its hash-wasm.h): larger inputs go through in chunks. */
const CHUNK = 16 * 1024;

/** The exports of hash-wasm's sha3 module (src/sha3.c). */
interface Sha3Exports {
  memory: WebAssembly.Memory;
  Hash_GetBuffer(): number;
  Hash_Init(bits: number): void;
  Hash_Update(size: number): void;
  Hash_Final(padding: number): void;
  Hash_Calculate(length: number, bits: number, padding: number): void;
}

/** Direct calls into one instance of the module: its input/output buffer as bytes and as a DataView. */
interface Direct {
  ex: Sha3Exports;
  buf: Uint8Array;
  view: DataView;
  off: number;
}

// One hasher serves every caller: a call runs init/update/digest without yielding, so calls never interleave.
let hasher: IHasher | undefined;
let direct: Direct | undefined;
let pending: Promise<void> | undefined;

/** Keccak's padding byte (0x01; SHA-3 uses 0x06). */
const KECCAK_PADDING = 0x01;

async function loadDirect(): Promise<Direct | undefined> {
  try {
    const file = createRequire(import.meta.url).resolve('hash-wasm/dist/sha3.umd.min.js');
    const m = /name:"sha3",data:"([A-Za-z0-9+/=]+)"/.exec(readFileSync(file, 'latin1'));
    if (m === null) return undefined;
    const { instance } = await WebAssembly.instantiate(Buffer.from(m[1]!, 'base64'), {});
    const ex = instance.exports as unknown as Sha3Exports;
    if (typeof ex.Hash_Calculate !== 'function' || !(ex.memory instanceof WebAssembly.Memory)) return undefined;
    const off = ex.Hash_GetBuffer();
    return { ex, buf: new Uint8Array(ex.memory.buffer, off, CHUNK), view: new DataView(ex.memory.buffer, off), off };
  } catch {
    return undefined;
  }
}

/** Whether `d` hashes known inputs (empty, 64 bytes, and one longer than a chunk) as the IHasher does. */
function agrees(d: Direct, h: IHasher): boolean {
  const prev = direct;
  direct = d;
  try {
    for (const n of [0, 64, 135, 136, CHUNK + 100]) {
      const data = new Uint8Array(n);
      for (let i = 0; i < n; i++) data[i] = (i * 131 + 7) & 0xff;
      const want = h.init().update(data).digest('binary');
      const got = keccak256(data);
      for (let i = 0; i < 32; i++) if (got[i] !== want[i]) return false;
    }
    return true;
  } finally {
    direct = prev;
  }
}

/** Loads the WebAssembly hasher; call (and await) once before the first {@link keccak256}. Idempotent. */
export function initKeccak(): Promise<void> {
  pending ??= Promise.all([createKeccak(256), loadDirect()]).then(([h, d]) => {
    hasher = h;
    if (d !== undefined && agrees(d, h)) direct = d;
  });
  return pending;
}

/** Hashes data[off, off+len) into the direct instance's buffer (the digest's 32 bytes at its start). */
function hashInto(d: Direct, data: Uint8Array, off: number, len: number): void {
  const buf = d.buf;
  if (len <= CHUNK) {
    // A short input is copied byte by byte: cheaper than the subarray a set() needs.
    if (len <= 128) for (let i = 0; i < len; i++) buf[i] = data[off + i]!;
    else buf.set(data.subarray(off, off + len));
    d.ex.Hash_Calculate(len, 256, KECCAK_PADDING);
    return;
  }
  d.ex.Hash_Init(256);
  for (let p = 0; p < len; p += CHUNK) {
    const n = Math.min(CHUNK, len - p);
    buf.set(data.subarray(off + p, off + p + n));
    d.ex.Hash_Update(n);
  }
  d.ex.Hash_Final(KECCAK_PADDING);
}

/** keccak-256 of `data` (a fresh 32-byte array). Throws when {@link initKeccak} has not completed. */
export function keccak256(data: Uint8Array): Uint8Array {
  const d = direct;
  if (d !== undefined) {
    hashInto(d, data, 0, data.length);
    return d.buf.slice(0, 32);
  }
  if (hasher === undefined) throw new Error('keccak256 used before initKeccak() resolved');
  hasher.init();
  hasher.update(data);
  return hasher.digest('binary');
}

/** keccak-256 of data[off, off+len) as a word (KECCAK256's result), without a digest array in between. */
export function keccakWord(data: Uint8Array, off: number, len: number): bigint {
  const d = direct;
  if (d === undefined) return bytesToBigint(keccak256(data.subarray(off, off + len)));
  hashInto(d, data, off, len);
  return wordOfView(d.view, 0);
}
