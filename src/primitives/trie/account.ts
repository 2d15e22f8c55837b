// An account leaf's value, rlp([nonce, balance, storageRoot, codeHash]), written in one pass: a block writes one per
// changed account (a 500-transfer block ~1,000), and the generic encoder's item arrays and the two integers'
// minimal-byte arrays cost more than the write itself.
import { MASK256, writeWord } from '../bytes.ts';
import { rlpHeaderLength, writeRlpHeader, writeRlpString } from '../rlp.ts';

const NONCE = new Uint8Array(32);
const BALANCE = new Uint8Array(32);

/** Writes `v` (< 2^256) into `word`; returns the offset of its first non-zero byte (32 for zero). */
function fill(word: Uint8Array, v: bigint): number {
  if (v < 0n || v > MASK256) throw new RangeError('account integer out of range');
  writeWord(word, 0, v);
  let i = 0;
  while (i < 32 && word[i] === 0) i++;
  return i;
}

/** Bytes the integer word[start..32) takes as an RLP string (a single byte below 0x80 is its own encoding). */
function intLength(word: Uint8Array, start: number): number {
  return start === 31 && word[31]! < 0x80 ? 1 : 33 - start;
}

/** Writes the integer word[start..32) as an RLP string; returns the offset after it. */
function writeInt(out: Uint8Array, pos: number, word: Uint8Array, start: number): number {
  if (start === 31 && word[31]! < 0x80) {
    out[pos] = word[31]!;
    return pos + 1;
  }
  out[pos++] = 0x80 + 32 - start;
  for (let i = start; i < 32; i++) out[pos++] = word[i]!;
  return pos;
}

/**
 * rlp([nonce, balance, storageRoot, codeHash]) for integers below 2^256 and 32-byte hashes: byte for byte what
 * rlpEncode makes of the same fields with the integers as minimal big-endian bytes.
 */
export function encodeAccountRlp(
  nonce: bigint,
  balance: bigint,
  storageRoot: Uint8Array,
  codeHash: Uint8Array,
): Uint8Array {
  if (storageRoot.length !== 32 || codeHash.length !== 32) throw new RangeError('account hashes must be 32 bytes');
  const n = fill(NONCE, nonce);
  const b = fill(BALANCE, balance);
  const payload = intLength(NONCE, n) + intLength(BALANCE, b) + 66;
  const out = new Uint8Array(rlpHeaderLength(payload) + payload);
  let pos = writeRlpHeader(out, 0, payload, 0xc0);
  pos = writeInt(out, pos, NONCE, n);
  pos = writeInt(out, pos, BALANCE, b);
  writeRlpString(out, writeRlpString(out, pos, storageRoot), codeHash);
  return out;
}
