// Checking what the upstream says against the fork block's stateRoot: an EIP-1186 proof (eth_getProof) is walked
// from the root through the nodes it lists, so the account (nonce, balance, storage root, code hash) and each slot
// come from the proven trie rather than from the upstream's word; code is checked against the proven code hash.
// A proof that does not lead to its claimed values is an error naming the account, never a silently wrong state.
import { rlpDecode } from '../../primitives/rlp.ts';
import type { Address } from '../../evm/types.ts';
import { UpstreamError } from '../../errors/index.ts';
import { EMPTY_CODE_HASH, EMPTY_TRIE_ROOT } from '../../primitives/hash.ts';
import { bytesEqual, bytesToBigint, bytesToHex, hexToBytes } from '../../primitives/hex.ts';
import { keccak256 } from '../../primitives/keccak.ts';
import { trieGet } from '../../primitives/trie/read.ts';
import { MissingTrieNodeError } from '../../primitives/trie/read.ts';

/** An account and slots as proven at the fork block; `account` null when the proof shows it absent. */
export interface ProvenAccount {
  account: { nonce: bigint; balance: bigint; codeHash: Uint8Array } | null;
  slots: Map<bigint, bigint>;
}

/** The JSON of an eth_getProof answer, as far as it is read here. */
interface ProofJson {
  accountProof?: unknown;
  balance?: unknown;
  nonce?: unknown;
  codeHash?: unknown;
  storageHash?: unknown;
  storageProof?: Array<{ key?: unknown; value?: unknown; proof?: unknown }>;
}

const addrHex = (a: Address): string => '0x' + a.toString(16).padStart(40, '0');

/** Walks `proof` (RLP nodes) from `root` to `key`'s value in a secure trie; throws when the proof lacks a node. */
function provenValue(root: Uint8Array, key: Uint8Array, proof: unknown): Uint8Array | undefined {
  if (!Array.isArray(proof) || !proof.every((n) => typeof n === 'string')) throw new Error('proof is not a list');
  const nodes = new Map<string, Uint8Array>();
  for (const n of proof as string[]) {
    const rlp = hexToBytes(n);
    nodes.set(bytesToHex(keccak256(rlp)), rlp);
  }
  return trieGet((h) => nodes.get(bytesToHex(h)), root, key);
}

/**
 * The account `address` and its `slots` proven from `answer` (one eth_getProof result) against `stateRoot`; an
 * answer whose proof is broken or whose claimed values differ from the proven ones is an UpstreamError.
 */
export function verifyProof(
  url: string,
  stateRoot: Uint8Array,
  address: Address,
  slots: readonly bigint[],
  answer: unknown,
): ProvenAccount {
  const fail = (what: string): never => {
    throw new UpstreamError(
      'proofMismatch',
      url,
      `eth_getProof of ${addrHex(address)} ${what} (the fork block's stateRoot is ${bytesToHex(stateRoot)})`,
    );
  };
  const p = (answer ?? {}) as ProofJson;
  let rlp: Uint8Array | undefined;
  try {
    rlp = provenValue(stateRoot, hexToBytes(addrHex(address)), p.accountProof);
  } catch (e) {
    return fail(e instanceof MissingTrieNodeError ? 'does not lead to the account' : 'is malformed');
  }
  const claim = (v: unknown): bigint => (typeof v === 'string' && /^0x[0-9a-fA-F]*$/.test(v) ? BigInt(v) : -1n);
  let account: ProvenAccount['account'] = null;
  let storageRoot = EMPTY_TRIE_ROOT;
  if (rlp !== undefined) {
    const [nonce, balance, root, codeHash] = rlpDecode(rlp) as Uint8Array[];
    account = { nonce: bytesToBigint(nonce!), balance: bytesToBigint(balance!), codeHash: codeHash! };
    storageRoot = root!;
  }
  // The claimed fields must be the proven ones (an absent account claims zeros and the empty code hash).
  const proven = account ?? { nonce: 0n, balance: 0n, codeHash: EMPTY_CODE_HASH };
  if (claim(p.nonce) !== proven.nonce || claim(p.balance) !== proven.balance) fail('claims another nonce or balance');
  if (typeof p.codeHash === 'string' && p.codeHash !== '0x' + '0'.repeat(64)) {
    if (!bytesEqual(hexToBytes(p.codeHash), proven.codeHash)) fail('claims another code hash');
  }
  const out = new Map<bigint, bigint>();
  const answers = p.storageProof ?? [];
  for (const slot of slots) {
    const s = answers.find((x) => typeof x.key === 'string' && claim(x.key) === slot);
    if (s === undefined) fail(`lacks slot ${slot.toString(16)}`);
    const key = hexToBytes('0x' + slot.toString(16).padStart(64, '0'));
    let value: Uint8Array | undefined;
    try {
      value = provenValue(storageRoot, key, s!.proof);
    } catch {
      fail(`does not lead to slot 0x${slot.toString(16)}`);
    }
    const v = value === undefined ? 0n : bytesToBigint(rlpDecode(value) as Uint8Array);
    if (claim(s!.value) !== v) fail(`claims another value of slot 0x${slot.toString(16)}`);
    out.set(slot, v);
  }
  return { account, slots: out };
}

/** Checks fetched code against the proven code hash. */
export function verifyCode(url: string, address: Address, codeHash: Uint8Array, code: Uint8Array): void {
  const h = code.length === 0 ? EMPTY_CODE_HASH : keccak256(code);
  if (!bytesEqual(h, codeHash)) {
    throw new UpstreamError('proofMismatch', url, `eth_getCode of ${addrHex(address)} does not match its proven hash`);
  }
}
