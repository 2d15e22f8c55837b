// eth_getProof in-process: CPU µs per proof (an account and two of its slots) from Kestrel's trie walk
// (app/state/proof.ts over a StateView) beside the way it was built before, @ethereumjs/mpt's createMerkleProof over
// a MerkleStateManager, both reading one LevelDB archive through the same node cache, interleaved in one process.
// Each side checks the other's answers on the first round.
//   node --import tsx bench/proof.ts [--accounts 20000] [--rounds 5] [--proofs 2000]
// Last recorded run (2026-11-26, 2 shared cores at load ~15-20, WebAssembly keccak on both sides): ethereumjs
// 153.9 µs, Kestrel 47.2 µs CPU per proof (0.31x).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deepStrictEqual } from 'node:assert/strict';
import { createMerkleProof, MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { Address, bytesToBigInt, ValueEncoding } from '@ethereumjs/util';
import { createChainCommon, createFastKeccak } from '../src/app/evm/common.ts';
import { writeState } from '../src/app/evm/stateWrite.ts';
import { proveAccount } from '../src/app/state/proof.ts';
import { StateDb } from '../src/app/state/stateDb.ts';
import type { AccountDiff } from '../src/evm/index.ts';
import { EMPTY_CODE_HASH, EMPTY_TRIE_ROOT } from '../src/primitives/hash.ts';
import { bytesToHex } from '../src/primitives/hex.ts';
import { KvStore } from '../src/store/kv.ts';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const ACCOUNTS = arg('accounts', 20_000);
const ROUNDS = arg('rounds', 5);
const PROOFS = arg('proofs', 2_000);

const keccak = await createFastKeccak();
const common = createChainCommon(9000n, keccak);
const dir = mkdtempSync(join(tmpdir(), 'kestrel-proofbench-'));
const kv = await KvStore.open(join(dir, 'db'));
const db = new StateDb(kv, common);

// The state: ACCOUNTS accounts, every tenth a contract with 50 storage slots.
const diff: AccountDiff[] = [];
for (let i = 1; i <= ACCOUNTS; i++) {
  const storage = new Map<bigint, bigint>();
  if (i % 10 === 0) for (let s = 0n; s < 50n; s++) storage.set(s, BigInt(i) * 1000n + s + 1n);
  const code = i % 10 === 0 ? Uint8Array.of(0x60, i & 0xff, 0x00) : undefined;
  diff.push({
    address: BigInt(i) * 0x1000193n,
    deleted: false,
    nonce: BigInt(i),
    balance: BigInt(i) * 10n ** 18n,
    codeHash: code ? keccak(code) : EMPTY_CODE_HASH,
    ...(code ? { code } : {}),
    storageCleared: false,
    storage,
  });
}
const buf = db.bufferedDb();
const root = writeState(
  EMPTY_TRIE_ROOT,
  diff,
  (k) => buf.getSync(k),
  (k, v) => buf.putSync(k, v),
);
await kv.write(buf.drain());

const addr = (i: number) => {
  const b = new Uint8Array(20);
  let v = BigInt(i) * 0x1000193n;
  for (let j = 19; j >= 0; j--, v >>= 8n) b[j] = Number(v & 0xffn);
  return b;
};
const slot = (s: number) => new Uint8Array(32).fill(s, 31);
// Requests: mostly contracts (two slots), some EOAs and absent accounts.
const requests = Array.from({ length: PROOFS }, (_, k) => {
  const i = (k * 7919) % (ACCOUNTS + 200);
  return { address: addr(i + 1), slots: [slot(k % 50), slot((k + 17) % 60)] };
});

// Before: the read view was a MerkleStateManager over the archive (cached per root, as StateDb.readView kept it).
const sm = new MerkleStateManager({
  common,
  trie: new MerklePatriciaTrie({
    db: db.bufferedDb(),
    root,
    useKeyHashing: true,
    valueEncoding: ValueEncoding.Bytes,
    common,
  }),
  caches: new Caches(),
});
const tries = sm as unknown as {
  _trie: MerklePatriciaTrie;
  _getStorageTrie(a: Address, acc: unknown): MerklePatriciaTrie;
};
async function ethjs(address: Uint8Array, slots: Uint8Array[]) {
  const a = new Address(address);
  const account = await sm.getAccount(a);
  const accountProof = await createMerkleProof(tries._trie, address);
  if (!account) return { accountProof, storage: slots.map(() => ({ value: 0n, proof: [] as Uint8Array[] })) };
  const trie = tries._getStorageTrie(a, account);
  const storage = [];
  for (const s of slots) {
    storage.push({ value: bytesToBigInt(await sm.getStorage(a, s)), proof: await createMerkleProof(trie, s) });
  }
  return { accountProof, storage };
}
function kestrel(address: Uint8Array, slots: Uint8Array[]) {
  const p = proveAccount(db.readView(root), address, slots);
  return { accountProof: p.accountProof, storage: p.storageProof.map((s) => ({ value: s.value, proof: s.proof })) };
}

const hex = (p: { accountProof: Uint8Array[]; storage: { value: bigint; proof: Uint8Array[] }[] }) => ({
  accountProof: p.accountProof.map(bytesToHex),
  storage: p.storage.map((s) => ({ value: s.value, proof: s.proof.map(bytesToHex) })),
});
for (const r of requests) deepStrictEqual(hex(kestrel(r.address, r.slots)), hex(await ethjs(r.address, r.slots)));

const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const ours: number[] = [];
const theirs: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  let t = cpuUs();
  for (const r of requests) await ethjs(r.address, r.slots);
  theirs.push((cpuUs() - t) / PROOFS);
  t = cpuUs();
  for (const r of requests) kestrel(r.address, r.slots);
  ours.push((cpuUs() - t) / PROOFS);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log(`state: ${ACCOUNTS} accounts (every tenth with 50 slots); ${PROOFS} proofs per round, ${ROUNDS} rounds`);
console.log(`ethereumjs createMerkleProof + MerkleStateManager: ${median(theirs).toFixed(1)} µs CPU per proof`);
console.log(`Kestrel trie walk (StateView):                      ${median(ours).toFixed(1)} µs CPU per proof`);
console.log(`ratio Kestrel/ethereumjs: ${(median(ours) / median(theirs)).toFixed(3)}`);
await kv.close();
rmSync(dir, { recursive: true, force: true });
