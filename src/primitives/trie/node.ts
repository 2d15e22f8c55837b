// Merkle-Patricia trie nodes written straight to their RLP (no intermediate item tree): a block hashes thousands
// of them (state, transactions and receipts tries), so each is sized once and written into one buffer.
// A child is referenced in its parent by its 32-byte hash (written as an RLP string), or, when its encoding is
// shorter than 32 bytes, by that encoding embedded as is; the length tells the two apart.
import { rlpHeaderLength, rlpStringLength, writeRlpHeader, writeRlpString } from '../rlp.ts';

/** A node's reference in its parent: its hash, or its own encoding when shorter than 32 bytes. */
export type Ref = Uint8Array;

/**
 * Writes the hex-prefix encoding of nibbles path[from..to) (Yellow Paper appendix C): flag 2 marks a leaf, +1 an
 * odd length.
 */
function writeHexPrefixBytes(
  out: Uint8Array,
  pos: number,
  path: ArrayLike<number>,
  from: number,
  to: number,
  leaf: boolean,
): number {
  const odd = (to - from) & 1;
  let i = from;
  out[pos] = (((leaf ? 2 : 0) + odd) << 4) | (odd ? path[i++]! : 0);
  for (pos++; i < to; i += 2) out[pos++] = (path[i]! << 4) | path[i + 1]!;
  return pos;
}

/** Bytes the hex-prefixed path [from, to) takes as an RLP string (its one byte, below 0x80, when alone). */
function pathLength(from: number, to: number): number {
  const n = ((to - from) >> 1) + 1;
  return n === 1 ? 1 : rlpHeaderLength(n) + n;
}

/** Writes the hex-prefixed path [from, to) as an RLP string. */
function writePath(
  out: Uint8Array,
  pos: number,
  path: ArrayLike<number>,
  from: number,
  to: number,
  leaf: boolean,
): number {
  const n = ((to - from) >> 1) + 1;
  if (n > 1) pos = writeRlpHeader(out, pos, n, 0x80);
  return writeHexPrefixBytes(out, pos, path, from, to, leaf);
}

/**
 * Where an encoding is written: into `scratch` when given and large enough (the caller hashes or copies the view
 * before the next encoding: a node that is only hashed then costs no allocation), else into a new array.
 */
function target(size: number, scratch: Uint8Array | undefined): Uint8Array {
  return scratch !== undefined && scratch.length >= size ? scratch.subarray(0, size) : new Uint8Array(size);
}

/** The encoding of a leaf: nibbles path[from..to), then its value; see target() for `scratch`. */
export function encodeLeaf(
  path: ArrayLike<number>,
  from: number,
  to: number,
  value: Uint8Array,
  scratch?: Uint8Array,
): Uint8Array {
  return encodeShort(path, from, to, true, value, scratch);
}

/** The encoding of an extension: nibbles path[from..to), then its child's reference. */
export function encodeExtension(
  path: ArrayLike<number>,
  from: number,
  to: number,
  child: Ref,
  scratch?: Uint8Array,
): Uint8Array {
  return encodeShort(path, from, to, false, child, scratch);
}

// A leaf and an extension are the same two-item list; only an extension's embedded child (a reference shorter than
// a hash) goes in as its own encoding rather than as a byte string.
function encodeShort(
  path: ArrayLike<number>,
  from: number,
  to: number,
  leaf: boolean,
  tail: Uint8Array,
  scratch: Uint8Array | undefined,
): Uint8Array {
  const embedded = !leaf && tail.length !== 32;
  const payload = pathLength(from, to) + (embedded ? tail.length : rlpStringLength(tail));
  const out = target(rlpHeaderLength(payload) + payload, scratch);
  const pos = writePath(out, writeRlpHeader(out, 0, payload, 0xc0), path, from, to, leaf);
  if (embedded) out.set(tail, pos);
  else writeRlpString(out, pos, tail);
  return out;
}

/** The encoding of a branch: 16 child references (undefined for none) and its value (empty for none). */
export function encodeBranch(
  children: ReadonlyArray<Ref | undefined>,
  value: Uint8Array,
  scratch?: Uint8Array,
): Uint8Array {
  let payload = rlpStringLength(value);
  for (let i = 0; i < 16; i++) {
    const c = children[i];
    payload += c === undefined ? 1 : refLength(c);
  }
  const out = target(rlpHeaderLength(payload) + payload, scratch);
  let pos = writeRlpHeader(out, 0, payload, 0xc0);
  for (let i = 0; i < 16; i++) {
    const c = children[i];
    if (c === undefined) out[pos++] = 0x80;
    else pos = writeRef(out, pos, c);
  }
  writeRlpString(out, pos, value);
  return out;
}

/** Bytes a reference takes in its parent. */
function refLength(r: Ref): number {
  return r.length === 32 ? 33 : r.length;
}

/** Writes a child reference: a hash as an RLP string, an embedded node's encoding as it is. */
function writeRef(out: Uint8Array, pos: number, ref: Ref): number {
  if (ref.length === 32) return writeRlpString(out, pos, ref);
  out.set(ref, pos);
  return pos + ref.length;
}
