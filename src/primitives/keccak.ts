// keccak-256 for every layer, the engine included: hash-wasm's WebAssembly keccak (about 5x faster than the pure-JS
// one, ../shared/REFERENCE-ENGINE.md §1), synchronous from the first call.
//
// The engine calls hash-wasm's compiled module directly: its IHasher wraps every hash in a type check and three
// typed-array allocations (the input view, the update view, the digest copy), as much time as the permutation itself
// for a 64-byte input (an ERC20 mapping slot). The module is the library's own (the sha3 build its dist embeds),
// instantiated once more here; it is checked against known digests at start, and the IHasher serves if it cannot be
// loaded or does not match.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createKeccak, type IHasher } from 'hash-wasm';
import { bytesToBigint, wordOfView } from './bytes.ts';

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
let tried = false;
let pending: Promise<void> | undefined;

/** Keccak's padding byte (0x01; SHA-3 uses 0x06). */
const KECCAK_PADDING = 0x01;

/**
 * Instantiates the module synchronously (Node compiles a module of any size on the calling thread), so keccak256 works
 * from the first call in every process, the CLI and workers included, without an await before it.
 */
function loadDirect(): Direct | undefined {
  try {
    const file = createRequire(import.meta.url).resolve('hash-wasm/dist/sha3.umd.min.js');
    const m = /name:"sha3",data:"([A-Za-z0-9+/=]+)"/.exec(readFileSync(file, 'latin1'));
    if (m === null) return undefined;
    const instance = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(m[1]!, 'base64')), {});
    const ex = instance.exports as unknown as Sha3Exports;
    if (typeof ex.Hash_Calculate !== 'function' || !(ex.memory instanceof WebAssembly.Memory)) return undefined;
    const off = ex.Hash_GetBuffer();
    return { ex, buf: new Uint8Array(ex.memory.buffer, off, CHUNK), view: new DataView(ex.memory.buffer, off), off };
  } catch {
    return undefined;
  }
}

/**
 * The self-test: known digests of inputs that take each path of hashInto (empty, a short copy, one byte below and at
 * the 136-byte rate, and the chunked path past the buffer). Input i of length n is (i * 131 + 7) & 0xff.
 */
const KNOWN: ReadonlyArray<readonly [number, string]> = [
  [0, 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470'],
  [64, '2449ec91611286422d31d903954b3c8494330d099ed443234a604b955358b8ba'],
  [135, '177d7a0621ad962b4b2566f780a3fd53c60ba8dd5191af15928a21110a58551e'],
  [136, 'f32872a69dc02e38925627f91d4148d250a8566a159fecd9a609ef99d32505bc'],
  [CHUNK + 100, '9fdf7db20171746a0b3b3430f9e821e11673b9e3c513c8a3f277769d8b04b6d4'],
];

/** Whether `d` hashes the known inputs to their known digests. */
function agrees(d: Direct): boolean {
  for (const [n, want] of KNOWN) {
    const data = new Uint8Array(n);
    for (let i = 0; i < n; i++) data[i] = (i * 131 + 7) & 0xff;
    hashInto(d, data, 0, n);
    if (Buffer.from(d.buf.subarray(0, 32)).toString('hex') !== want) return false;
  }
  return true;
}

/** The direct instance, loaded and self-tested on first use; undefined (once) when it cannot load or disagrees. */
function directHasher(): Direct | undefined {
  if (!tried) {
    tried = true;
    const d = loadDirect();
    if (d !== undefined && agrees(d)) direct = d;
  }
  return direct;
}

/**
 * Makes keccak256 ready: the direct module (synchronous, see loadDirect) or, if it cannot serve, hash-wasm's own
 * IHasher, which only loads asynchronously. Idempotent; only a process whose direct module failed needs to await it.
 */
export function initKeccak(): Promise<void> {
  if (directHasher() !== undefined) return Promise.resolve();
  pending ??= createKeccak(256).then((h) => {
    hasher = h;
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

/** keccak-256 of `data` (a fresh 32-byte array). Throws only when the direct module failed and initKeccak has not resolved. */
export function keccak256(data: Uint8Array): Uint8Array {
  const d = direct ?? directHasher();
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
  const d = direct ?? directHasher();
  if (d === undefined) return bytesToBigint(keccak256(data.subarray(off, off + len)));
  hashInto(d, data, off, len);
  return wordOfView(d.view, 0);
}
