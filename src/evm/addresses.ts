// Addresses the engine derives from bytes: a contract's under CREATE and CREATE2, and the one an EIP-7702
// delegation designator points to. A leaf, so the opcodes and the transaction handler share it without a circle.
import { keccak256 } from '../primitives/keccak.ts';
import { addressToBytes, bigintToMinBytes, bytesToBigint, MASK160 } from '../primitives/bytes.ts';
import { rlpEncode } from '../primitives/rlp.ts';

/** The address an EIP-7702 delegation designator (0xef0100 ‖ address) points to, or -1n when not one. */
export function delegationTarget(code: Uint8Array): bigint {
  if (code.length !== 23 || code[0] !== 0xef || code[1] !== 0x01 || code[2] !== 0x00) return -1n;
  return bytesToBigint(code.subarray(3));
}

/** CREATE's address: keccak(rlp([sender, nonce]))[12:]. */
export function createAddress(sender: bigint, nonce: bigint): bigint {
  return bytesToBigint(keccak256(rlpEncode([addressToBytes(sender), bigintToMinBytes(nonce)])).subarray(12));
}

/** CREATE2's address: keccak(0xff ‖ sender ‖ salt ‖ keccak(initcode))[12:]. */
export function create2Address(sender: bigint, salt: bigint, initcode: Uint8Array): bigint {
  const buf = new Uint8Array(85);
  buf[0] = 0xff;
  buf.set(addressToBytes(sender), 1);
  const dv = new DataView(buf.buffer);
  for (let i = 0; i < 4; i++) dv.setBigUint64(21 + 8 * i, (salt >> BigInt(192 - 64 * i)) & 0xffffffffffffffffn);
  buf.set(keccak256(initcode), 53);
  return bytesToBigint(keccak256(buf).subarray(12)) & MASK160;
}
