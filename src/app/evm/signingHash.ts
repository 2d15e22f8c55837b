// The hash a transaction's signature signs and the signature's r and s, read off the tx's canonical encoding. The
// signed fields are the encoding's own bytes (a typed tx's payload without v, r, s; a legacy tx's first six fields,
// then EIP-155's chainId, 0, 0), so nothing is re-encoded: ethereumjs's getMessageToVerifySignature rebuilds every
// field from its decoded value and RLP-encodes the lot, a tenth of admission's CPU after the recovery itself.
import { rlpHeaderLength, rlpStringLength, writeRlpHeader, writeRlpString } from '../../primitives/rlp.ts';
import { bigintToMinBytes } from '../../primitives/bytes.ts';

/** What the signature check needs from a tx's encoding. */
export interface SignedParts {
  /** keccak-256 of the signed message. */
  msgHash: Uint8Array;
  r: Uint8Array;
  s: Uint8Array;
}

/** Start of the payload and end of the RLP item at `pos` of `b` (a canonical encoding, already decoded once). */
function item(b: Uint8Array, pos: number): { payload: number; end: number } {
  const p = b[pos]!;
  if (p < 0x80) return { payload: pos, end: pos + 1 };
  if (p <= 0xb7) return { payload: pos + 1, end: pos + 1 + p - 0x80 };
  if (p < 0xc0 || p > 0xf7) {
    const lenOfLen = p < 0xc0 ? p - 0xb7 : p - 0xf7;
    let len = 0;
    for (let i = 1; i <= lenOfLen; i++) len = len * 256 + b[pos + i]!;
    return { payload: pos + 1 + lenOfLen, end: pos + 1 + lenOfLen + len };
  }
  return { payload: pos + 1, end: pos + 1 + p - 0xc0 };
}

/**
 * The signed message's hash and r, s of a decoded tx's canonical encoding `raw` (type 0 with EIP-155 `chainId`, or
 * a typed tx), or undefined when the encoding is not of that shape (the caller then asks ethereumjs).
 */
export function signedParts(
  raw: Uint8Array,
  type: number,
  chainId: bigint,
  keccak: (b: Uint8Array) => Uint8Array,
): SignedParts | undefined {
  const offset = type === 0 ? 0 : 1;
  const list = item(raw, offset);
  if (list.end !== raw.length) return undefined;
  const starts: number[] = [];
  for (let pos = list.payload; pos < list.end; pos = item(raw, pos).end) starts.push(pos);
  const n = starts.length;
  if (n < 4 || (type === 0 && n !== 9)) return undefined;
  const rItem = item(raw, starts[n - 2]!);
  const sItem = item(raw, starts[n - 1]!);
  const r = raw.subarray(rItem.payload, rItem.end);
  const s = raw.subarray(sItem.payload, sItem.end);
  // Legacy: the six fields before v; typed: everything before v.
  const signed = raw.subarray(list.payload, starts[type === 0 ? 6 : n - 3]!);
  let tail: Uint8Array | undefined;
  let payloadLength = signed.length;
  if (type === 0) {
    const id = bigintToMinBytes(chainId);
    tail = new Uint8Array(rlpStringLength(id) + 2);
    const at = writeRlpString(tail, 0, id);
    tail[at] = 0x80;
    tail[at + 1] = 0x80;
    payloadLength += tail.length;
  }
  const msg = new Uint8Array(offset + rlpHeaderLength(payloadLength) + payloadLength);
  if (offset === 1) msg[0] = type;
  let at = writeRlpHeader(msg, offset, payloadLength, 0xc0);
  msg.set(signed, at);
  at += signed.length;
  if (tail) msg.set(tail, at);
  return { msgHash: keccak(msg), r, s };
}
