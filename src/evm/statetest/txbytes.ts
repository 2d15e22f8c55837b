// The check geth's state-test runner makes on a case's `txbytes` before running it: the bytes must decode as a
// transaction (canonical RLP, exact field counts and sizes) of a type the fork's signer supports, and the sender
// must recover (chain id, low-s signature values, a valid point). A failure makes the case a rejected tx.
import { secp256k1 } from '../../primitives/secp256k1.ts';
import { keccak256 } from '../../primitives/keccak.ts';
import { bigintToMinBytes, bytesToBigint } from '../../primitives/bytes.ts';
import { rlpDecode, rlpEncode, RlpError, type RlpItem } from '../../primitives/rlp.ts';

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

type FieldKind = 'u64' | 'big' | 'u256' | 'u8' | 'to' | 'address' | 'bytes' | 'accessList' | 'hashes' | 'auths';

// Field layouts per type (EIP-2718 envelopes), the signature's v, r, s last.
const LAYOUTS: Record<number, FieldKind[]> = {
  0: ['u64', 'big', 'u64', 'to', 'big', 'bytes', 'big', 'big', 'big'],
  1: ['big', 'u64', 'big', 'u64', 'to', 'big', 'bytes', 'accessList', 'big', 'big', 'big'],
  2: ['big', 'u64', 'big', 'big', 'u64', 'to', 'big', 'bytes', 'accessList', 'big', 'big', 'big'],
  3: [
    'u256',
    'u64',
    'u256',
    'u256',
    'u64',
    'address',
    'u256',
    'bytes',
    'accessList',
    'u256',
    'hashes',
    'u256',
    'u256',
    'u256',
  ],
  4: ['u256', 'u64', 'u256', 'u256', 'u64', 'address', 'u256', 'bytes', 'accessList', 'auths', 'u256', 'u256', 'u256'],
};

class DecodeError extends Error {}

function bytesOf(item: RlpItem, what: string): Uint8Array {
  if (!(item instanceof Uint8Array)) throw new DecodeError(`rlp: expected input string or byte for ${what}`);
  return item;
}

function listOf(item: RlpItem, what: string): RlpItem[] {
  if (item instanceof Uint8Array) throw new DecodeError(`rlp: expected input list for ${what}`);
  return item;
}

function integer(item: RlpItem, maxBytes: number, what: string): bigint {
  const b = bytesOf(item, what);
  if (b.length > 0 && b[0] === 0) throw new DecodeError(`rlp: non-canonical integer (leading zero bytes) for ${what}`);
  if (b.length > maxBytes) throw new DecodeError(`rlp: input string too long for ${what}`);
  return bytesToBigint(b);
}

function fixedBytes(item: RlpItem, size: number, what: string): void {
  const b = bytesOf(item, what);
  if (b.length !== size)
    throw new DecodeError(`rlp: input string too ${b.length > size ? 'long' : 'short'} for ${what}`);
}

function checkField(item: RlpItem, kind: FieldKind, what: string): void {
  switch (kind) {
    case 'u64':
      integer(item, 8, what);
      return;
    case 'u8':
      integer(item, 1, what);
      return;
    case 'big':
      integer(item, Number.MAX_SAFE_INTEGER, what);
      return;
    case 'u256':
      integer(item, 32, what);
      return;
    case 'to':
      if (bytesOf(item, what).length !== 0) fixedBytes(item, 20, what);
      return;
    case 'address':
      fixedBytes(item, 20, what);
      return;
    case 'bytes':
      bytesOf(item, what);
      return;
    case 'hashes':
      for (const h of listOf(item, what)) fixedBytes(h, 32, what);
      return;
    case 'accessList':
      for (const entry of listOf(item, what)) {
        const tuple = listOf(entry, 'access tuple');
        if (tuple.length !== 2) throw new DecodeError(`rlp: wrong number of fields in access tuple`);
        fixedBytes(tuple[0]!, 20, 'access tuple address');
        for (const k of listOf(tuple[1]!, 'storage keys')) fixedBytes(k, 32, 'storage key');
      }
      return;
    case 'auths':
      for (const entry of listOf(item, what)) {
        const auth = listOf(entry, 'authorization');
        if (auth.length !== 6) throw new DecodeError('rlp: wrong number of fields in authorization');
        const kinds: FieldKind[] = ['u256', 'address', 'u64', 'u8', 'u256', 'u256'];
        auth.forEach((f, i) => checkField(f, kinds[i]!, 'authorization'));
      }
      return;
  }
}

function recover(sigHash: Uint8Array, v: bigint, r: bigint, s: bigint): string | undefined {
  // geth's recoverPlain with homestead rules: v in {27, 28}, 1 <= r < n, 1 <= s <= n/2.
  if (v !== 27n && v !== 28n) return 'invalid transaction v, r, s values';
  if (r < 1n || s < 1n || r >= SECP256K1_N || s > SECP256K1_N / 2n) return 'invalid transaction v, r, s values';
  const sig = Buffer.from(r.toString(16).padStart(64, '0') + s.toString(16).padStart(64, '0'), 'hex');
  try {
    secp256k1().ecdsaRecover(sig, Number(v - 27n), sigHash, false);
  } catch {
    return 'invalid signature';
  }
  return undefined;
}

/**
 * Why geth would refuse these transaction bytes under a signer for `chainId` that supports set-code txs only
 * when `prague`; undefined when they decode and the sender recovers.
 */
export function txBytesError(raw: Uint8Array, chainId: bigint, prague: boolean): string | undefined {
  if (raw.length === 0) return 'typed transaction too short';
  const type = raw[0]! > 0x7f ? 0 : raw[0]!;
  const layout = LAYOUTS[type];
  if (layout === undefined) return 'transaction type not supported';
  if (type !== 0 && raw.length <= 1) return 'typed transaction too short';
  let fields: RlpItem[];
  try {
    fields = listOf(rlpDecode(type === 0 ? raw : raw.subarray(1)), 'transaction');
    if (fields.length < layout.length) return 'rlp: too few elements for transaction';
    if (fields.length > layout.length) return 'rlp: input list has too many elements for transaction';
    fields.forEach((f, i) => checkField(f, layout[i]!, `transaction field ${i}`));
  } catch (e) {
    if (e instanceof RlpError || e instanceof DecodeError) return e.message;
    throw e;
  }
  if (type === 4 && !prague) return 'transaction type not supported';
  const n = fields.length;
  const [vRaw, r, s] = [
    integer(fields[n - 3]!, 1 << 20, 'v'),
    integer(fields[n - 2]!, 1 << 20, 'r'),
    integer(fields[n - 1]!, 1 << 20, 's'),
  ];
  if (type === 0) {
    const unsigned = fields.slice(0, 6);
    const isProtected = !(vRaw === 27n || vRaw === 28n || vRaw === 0n || vRaw === 1n);
    if (!isProtected) return recover(keccak256(rlpEncode(unsigned)), vRaw, r, s);
    const txChainId = (vRaw - 35n) / 2n;
    if (txChainId !== chainId) return `invalid chain id for signer: have ${txChainId} want ${chainId}`;
    const payload = rlpEncode([...unsigned, bigintToMinBytes(chainId), new Uint8Array(0), new Uint8Array(0)]);
    return recover(keccak256(payload), vRaw - chainId * 2n - 8n, r, s);
  }
  const txChainId = integer(fields[0]!, 1 << 20, 'chainId');
  if (txChainId !== chainId) return `invalid chain id for signer: have ${txChainId} want ${chainId}`;
  const body = rlpEncode(fields.slice(0, n - 3));
  const payload = new Uint8Array(body.length + 1);
  payload[0] = type;
  payload.set(body, 1);
  return recover(keccak256(payload), vRaw + 27n, r, s);
}
