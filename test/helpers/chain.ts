// Independent recomputation of Ethereum block commitments from JSON-RPC objects, with ethers' RLP and keccak
// (not the node's libraries): header hash, transactionsRoot and receiptsRoot (a small Merkle-Patricia trie).
import {
  Signature,
  Transaction,
  encodeRlp,
  getBytes,
  hexlify,
  keccak256,
  toBeArray,
  type RlpStructuredData,
} from 'ethers';

export const EMPTY_TRIE_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';
export const EMPTY_UNCLES_HASH = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';
export const ZERO_BLOOM = '0x' + '00'.repeat(256);
export const ZERO_HASH = '0x' + '00'.repeat(32);
export const ZERO_ADDRESS = '0x' + '00'.repeat(20);

type RpcBlock = Record<string, any>;

/** Minimal big-endian bytes of a QUANTITY (0 → empty), as RLP wants integers. */
function q(hex: string | undefined | null, field: string): string {
  if (typeof hex !== 'string') throw new Error(`header field ${field} missing or not a string: ${JSON.stringify(hex)}`);
  return hexlify(toBeArray(BigInt(hex)));
}

function b(hex: string | undefined | null, field: string): string {
  if (typeof hex !== 'string') throw new Error(`header field ${field} missing or not a string: ${JSON.stringify(hex)}`);
  return hex;
}

/**
 * keccak256(rlp(header)) for a London…Prague header given as a JSON-RPC block object. Optional fork fields
 * (withdrawalsRoot, blobGasUsed, excessBlobGas, parentBeaconBlockRoot, requestsHash) are appended in order
 * while present; a gap (a later field present after a missing one) is an error.
 */
export function computeBlockHash(block: RpcBlock): string {
  const fields: RlpStructuredData[] = [
    b(block.parentHash, 'parentHash'),
    b(block.sha3Uncles, 'sha3Uncles'),
    b(block.miner, 'miner'),
    b(block.stateRoot, 'stateRoot'),
    b(block.transactionsRoot, 'transactionsRoot'),
    b(block.receiptsRoot, 'receiptsRoot'),
    b(block.logsBloom, 'logsBloom'),
    q(block.difficulty, 'difficulty'),
    q(block.number, 'number'),
    q(block.gasLimit, 'gasLimit'),
    q(block.gasUsed, 'gasUsed'),
    q(block.timestamp, 'timestamp'),
    b(block.extraData, 'extraData'),
    b(block.mixHash, 'mixHash'),
    b(block.nonce, 'nonce'),
  ];
  const optional: Array<[string, 'q' | 'b']> = [
    ['baseFeePerGas', 'q'],
    ['withdrawalsRoot', 'b'],
    ['blobGasUsed', 'q'],
    ['excessBlobGas', 'q'],
    ['parentBeaconBlockRoot', 'b'],
    ['requestsHash', 'b'],
  ];
  let gap: string | undefined;
  for (const [name, kind] of optional) {
    const v = block[name];
    if (v === undefined || v === null) {
      gap ??= name;
      continue;
    }
    if (gap) throw new Error(`header field ${name} present but earlier fork field ${gap} missing`);
    fields.push(kind === 'q' ? q(v, name) : b(v, name));
  }
  return keccak256(encodeRlp(fields));
}

// ---------------------------------------------------------------------------------------------------------------
// Merkle-Patricia trie root of an ordered list (key = rlp(index)), as used by transactionsRoot/receiptsRoot.

function toNibbles(bytes: Uint8Array): number[] {
  const out: number[] = [];
  for (const x of bytes) out.push(x >> 4, x & 15);
  return out;
}

function hexPrefix(nibbles: number[], leaf: boolean): string {
  const odd = nibbles.length % 2 === 1;
  const flag = (leaf ? 2 : 0) + (odd ? 1 : 0);
  const all = odd ? [flag, ...nibbles] : [flag, 0, ...nibbles];
  const out = new Uint8Array(all.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = (all[2 * i]! << 4) | all[2 * i + 1]!;
  return hexlify(out);
}

/** A node as it appears inside its parent: the node itself when its RLP is < 32 bytes, else its hash. */
function ref(node: RlpStructuredData): RlpStructuredData {
  const enc = encodeRlp(node);
  return getBytes(enc).length < 32 ? node : keccak256(enc);
}

function build(items: Array<[number[], string]>, depth: number): RlpStructuredData {
  if (items.length === 1) {
    const [key, value] = items[0]!;
    return [hexPrefix(key.slice(depth), true), value];
  }
  // Longest common prefix beyond depth → extension node.
  let common = 0;
  const first = items[0]![0];
  outer: while (depth + common < first.length) {
    const n = first[depth + common];
    for (const [k] of items) if (k[depth + common] !== n) break outer;
    common++;
  }
  if (common > 0) {
    return [hexPrefix(first.slice(depth, depth + common), false), ref(build(items, depth + common))];
  }
  const branch: RlpStructuredData[] = [];
  let value = '0x';
  for (let n = 0; n < 16; n++) {
    const sub = items.filter(([k]) => k.length > depth && k[depth] === n);
    branch.push(sub.length === 0 ? '0x' : ref(build(sub, depth + 1)));
  }
  const terminal = items.find(([k]) => k.length === depth);
  if (terminal) value = terminal[1];
  branch.push(value);
  return branch;
}

/** Root of the trie mapping rlp(i) → values[i]. */
export function orderedTrieRoot(values: Uint8Array[]): string {
  if (values.length === 0) return EMPTY_TRIE_ROOT;
  const items: Array<[number[], string]> = values.map((v, i) => [
    toNibbles(getBytes(encodeRlp(hexlify(toBeArray(i))))),
    hexlify(v),
  ]);
  return keccak256(encodeRlp(build(items, 0)));
}

// ---------------------------------------------------------------------------------------------------------------
// Consensus encodings of JSON-RPC transactions and receipts.

/** The signed consensus encoding of a JSON-RPC transaction object (legacy, 2930, 1559). */
export function rawTransaction(tx: Record<string, any>): string {
  const type = Number(BigInt(tx.type ?? '0x0'));
  const sig =
    type === 0
      ? Signature.from({ r: tx.r, s: tx.s, v: BigInt(tx.v) })
      : Signature.from({ r: tx.r, s: tx.s, yParity: Number(BigInt(tx.yParity ?? tx.v)) as 0 | 1 });
  const t = Transaction.from({
    type,
    to: tx.to ?? null,
    nonce: Number(BigInt(tx.nonce)),
    gasLimit: BigInt(tx.gas),
    data: tx.input,
    value: BigInt(tx.value),
    chainId: tx.chainId !== undefined && tx.chainId !== null ? BigInt(tx.chainId) : undefined,
    ...(type === 2
      ? { maxFeePerGas: BigInt(tx.maxFeePerGas), maxPriorityFeePerGas: BigInt(tx.maxPriorityFeePerGas) }
      : { gasPrice: BigInt(tx.gasPrice) }),
    ...(type === 1 || type === 2 ? { accessList: tx.accessList ?? [] } : {}),
    signature: sig,
  });
  const raw = t.serialized;
  if (keccak256(raw) !== tx.hash) {
    throw new Error(`re-encoded transaction hashes to ${keccak256(raw)}, node says ${tx.hash}`);
  }
  return raw;
}

/** The consensus encoding of a JSON-RPC receipt (EIP-2718 typed or legacy). */
export function rawReceipt(r: Record<string, any>): Uint8Array {
  const status = BigInt(r.status) === 1n ? '0x01' : '0x';
  const logs: RlpStructuredData[] = (r.logs as any[]).map((l) => [l.address, l.topics as string[], l.data]);
  const body = getBytes(encodeRlp([status, hexlify(toBeArray(BigInt(r.cumulativeGasUsed))), r.logsBloom, logs]));
  const type = Number(BigInt(r.type ?? '0x0'));
  if (type === 0) return body;
  const out = new Uint8Array(body.length + 1);
  out[0] = type;
  out.set(body, 1);
  return out;
}

/** transactionsRoot recomputed from a block fetched with full transaction objects. */
export function computeTransactionsRoot(fullBlock: RpcBlock): string {
  return orderedTrieRoot((fullBlock.transactions as any[]).map((tx) => getBytes(rawTransaction(tx))));
}

/** receiptsRoot recomputed from the block's receipts in transaction order. */
export function computeReceiptsRoot(receipts: Array<Record<string, any>>): string {
  return orderedTrieRoot(receipts.map(rawReceipt));
}
