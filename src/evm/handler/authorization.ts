// EIP-7702 authorizations: recover each tuple's authority, skip invalid tuples, set or clear the delegation
// designator and bump the authority's nonce. Returns the refund for authorities that already existed.
import { createRequire } from 'node:module';
import type Secp256k1 from 'secp256k1/bindings.js';
import type { Authorization, BlockEnv } from '../types.ts';
import type { WorldState } from '../state/world.ts';
import { delegationTarget } from '../addresses.ts';
import { keccak256 } from '../../primitives/keccak.ts';
import { addressToBytes, bigintToMinBytes, bytesToBigint, EMPTY_BYTES, wordToBytes } from '../../primitives/bytes.ts';
import { rlpEncode } from '../../primitives/rlp.ts';

const SECP256K1N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const NONCE_MAX = (1n << 64n) - 1n;
const MAGIC = 0x05;
/** PER_EMPTY_ACCOUNT_COST - PER_AUTH_BASE_COST. */
const EXISTING_AUTHORITY_REFUND = 12500;

let native: typeof Secp256k1 | undefined;
/**
 * The native secp256k1 library, loaded on the first authorization rather than with the engine's modules: finding
 * and loading its add-on is 15-25 ms of a node's start.
 */
function secp256k1(): typeof Secp256k1 {
  return (native ??= createRequire(import.meta.url)('secp256k1/bindings.js') as typeof Secp256k1);
}

/** The authority of a tuple, or undefined when its signature is invalid. */
export function recoverAuthority(auth: Authorization): bigint | undefined {
  if (auth.yParity > 1n) return undefined;
  if (auth.r === 0n || auth.r >= SECP256K1N || auth.s === 0n || auth.s > SECP256K1N / 2n) return undefined;
  const body = rlpEncode([bigintToMinBytes(auth.chainId), addressToBytes(auth.address), bigintToMinBytes(auth.nonce)]);
  const msg = new Uint8Array(body.length + 1);
  msg[0] = MAGIC;
  msg.set(body, 1);
  const digest = keccak256(msg);
  const sig = new Uint8Array(64);
  sig.set(wordToBytes(auth.r), 0);
  sig.set(wordToBytes(auth.s), 32);
  let pub: Uint8Array;
  try {
    pub = secp256k1().ecdsaRecover(sig, Number(auth.yParity), digest, false);
  } catch {
    return undefined;
  }
  return bytesToBigint(keccak256(pub.subarray(1)).subarray(12));
}

/** Applies the authorization list of a type-4 tx (after the sender's nonce and fee). Returns the refund. */
export function applyAuthorizations(world: WorldState, block: BlockEnv, list: readonly Authorization[]): number {
  let refund = 0;
  for (const auth of list) {
    if (auth.chainId !== 0n && auth.chainId !== block.chainId) continue;
    if (auth.nonce >= NONCE_MAX) continue;
    const authority = recoverAuthority(auth);
    if (authority === undefined) continue;
    const acc = world.account(authority);
    world.warmAddress(acc);
    if (!acc.codeEmpty && delegationTarget(world.code(acc)) < 0n) continue;
    if (acc.nonce !== auth.nonce) continue;
    if (acc.exists) refund += EXISTING_AUTHORITY_REFUND;
    if (auth.address === 0n) world.setCode(acc, EMPTY_BYTES, EMPTY_BYTES);
    else {
      const code = new Uint8Array(23);
      code[0] = 0xef;
      code[1] = 0x01;
      code[2] = 0x00;
      code.set(addressToBytes(auth.address), 3);
      world.setCode(acc, code, keccak256(code));
    }
    world.setNonce(acc, acc.nonce + 1n);
  }
  return refund;
}
