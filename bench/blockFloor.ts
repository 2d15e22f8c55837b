// The floor under an app block's cost (issue 27, target 3): what any design that keeps Ethereum's roots per block
// must spend on a 500-tx block beside the execution, measured on the bench's own blocks (lib/appBlock.ts).
//   node --import tsx bench/blockFloor.ts [rounds]
// 1. Hashing: every keccak-256 input a block's finalizeBlock and commit hash is recorded (a module hook swaps
//    src/primitives/keccak.ts for a counting copy, lib/keccakCountHooks.mjs; src is unchanged), then exactly those
//    inputs are hashed again alone through the same WebAssembly keccak in a warm loop (best of 7), and, where Node
//    has it (24 here), through OpenSSL's keccak-256. The state trie's
//    changed nodes, the new accounts' keys, the transactions and receipts tries and the header are hashed by any
//    such design; inputs already hashed in an earlier block are counted apart (a cache could skip them).
// 2. The store write: each block's LevelDB batch is recorded (KvStore.write) and written again into a fresh
//    LevelDB twice: as the same batch, and as one put of all its bytes (the fewest writes any layout can make).
//    CPU is the whole process's (LevelDB's own threads included), over all blocks and until compaction settles.
import { getHashes, hash } from 'node:crypto';
import { register } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { processCpuUs } from './lib/procCpu.ts';
// Types only (erased): the modules themselves load after the hook is registered.
import type { KestrelApp as App } from '../src/app/app.ts';
import type { KvOp, KvStore as Kv } from '../src/store/kv.ts';

register('./lib/keccakCountHooks.mjs', import.meta.url);
const rounds = Number(process.argv[2] ?? 8);
const { recorded, keccak256, initKeccak } = await import('./lib/keccakCounting.ts');
const { KestrelApp } = await import('../src/app/app.ts');
const { KvStore } = await import('../src/store/kv.ts');
const { appBlockRates } = await import('./lib/appBlock.ts');
await initKeccak();

/** Per block: the keccak256 inputs, the engine's keccakWord count, and the LevelDB ops. */
interface Recorded {
  inputs: Uint8Array[];
  engineWords: number;
  ops: KvOp[];
}
const blocks: Recorded[] = [];
let current: Recorded = { inputs: [], engineWords: 0, ops: [] };
recorded.sink = (data) => current.inputs.push(data.slice());

const finalizeBlock = KestrelApp.prototype.finalizeBlock;
KestrelApp.prototype.finalizeBlock = async function (this: App, ...args) {
  current = { inputs: [], engineWords: 0, ops: [] };
  recorded.keccakWordCalls = 0;
  recorded.on = true;
  try {
    return await finalizeBlock.apply(this, args);
  } finally {
    recorded.on = false;
  }
};
const commit = KestrelApp.prototype.commit;
KestrelApp.prototype.commit = async function (this: App) {
  recorded.on = true;
  try {
    return await commit.call(this);
  } finally {
    recorded.on = false;
    current.engineWords = recorded.keccakWordCalls;
    blocks.push(current);
  }
};
const write = KvStore.prototype.write;
KvStore.prototype.write = function (this: Kv, ops: KvOp[]) {
  if (recorded.on) current.ops.push(...ops);
  return write.call(this, ops);
};

await appBlockRates(rounds);
// appBlockRates: the token's deploy block, then per workload 2 warm-up and `rounds` measured blocks.
const workloads = { transfers: blocks.slice(3, 3 + rounds), erc20: blocks.slice(5 + rounds, 5 + 2 * rounds) };

/** keccak-f permutations hashing these inputs takes: one per started 136-byte block of each. */
function permutations(inputs: Uint8Array[]): number {
  return inputs.reduce((s, x) => s + Math.floor(x.length / 136) + 1, 0);
}

/** Bytes of these ops' keys and values. */
function opBytes(ops: KvOp[]): number {
  return ops.reduce((s, op) => s + op.key.length + (op.type === 'put' ? op.value.length : 0), 0);
}

/** A keccak-256 implementation to time: the node's (WebAssembly) or OpenSSL's through node:crypto. */
type Hash = (data: Uint8Array) => unknown;
/**
 * OpenSSL's keccak-256 (assembly; node:crypto names it from OpenSSL 3.2 on: Node 24 here, not 20 or 22), or
 * undefined where this Node does not have it.
 */
const opensslKeccak: Hash | undefined = getHashes().includes('keccak-256')
  ? (data) => hash('keccak-256', data, 'buffer')
  : undefined;

/** Best-of-7 CPU ms to hash these inputs once each with `h` (warm code). */
function hashMs(inputs: Uint8Array[], h: Hash): number {
  let best = Infinity;
  for (let r = 0; r < 7; r++) {
    const t0 = processCpuUs();
    for (let k = 0; k < 20; k++) for (const b of inputs) h(b);
    best = Math.min(best, (processCpuUs() - t0) / 20 / 1000);
  }
  return best;
}

/**
 * Best-of-7 CPU ms of the keccak-f permutations alone that these inputs take with `h` (one permutation per started
 * 136-byte block), hashed as one long input: the hashing with no per-call cost at all.
 */
function permutationMs(inputs: Uint8Array[], h: Hash): number {
  const one = new Uint8Array(permutations(inputs) * 136 - 1);
  return hashMs([one], h);
}

/** Process CPU ms per block to write these blocks' ops into a fresh LevelDB, as recorded or each as one put. */
async function storeMs(bs: Recorded[], onePut: boolean): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'kestrel-blockfloor-'));
  const kv = await KvStore.open(dir);
  try {
    // Each block written 4 times under fresh keys (a prefix), so the database grows as a chain's does.
    const batches: KvOp[][] = [];
    for (let rep = 0; rep < 4; rep++) {
      for (const [i, b] of bs.entries()) {
        const tag = (key: Uint8Array): Uint8Array => {
          const k = new Uint8Array(key.length + 2);
          k[0] = rep;
          k[1] = i;
          k.set(key, 2);
          return k;
        };
        if (!onePut) batches.push(b.ops.map((op) => (op.type === 'put' ? { ...op, key: tag(op.key) } : op)));
        else {
          const all = new Uint8Array(opBytes(b.ops));
          let o = 0;
          for (const op of b.ops) {
            all.set(op.key, o);
            o += op.key.length;
            if (op.type === 'put') {
              all.set(op.value, o);
              o += op.value.length;
            }
          }
          batches.push([{ type: 'put', key: tag(new Uint8Array([0x42])), value: all }]);
        }
      }
    }
    const t0 = processCpuUs();
    for (const ops of batches) await kv.write(ops);
    await sleep(1500); // LevelDB's flush and compaction of what was written run on its thread meanwhile
    return (processCpuUs() - t0) / batches.length / 1000;
  } finally {
    await kv.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const out: Record<string, unknown> = {};
const seen = new Set<string>();
for (const b of blocks.slice(0, 3)) for (const x of b.inputs) seen.add(Buffer.from(x).toString('hex'));
for (const [name, bs] of Object.entries(workloads)) {
  const repeated = bs.map((b) => {
    const hex = b.inputs.map((x) => Buffer.from(x).toString('hex'));
    const n = hex.filter((h) => seen.has(h)).length;
    for (const h of hex) seen.add(h);
    return n;
  });
  out[name] = {
    keccakCalls: median(bs.map((b) => b.inputs.length)),
    keccakBytes: median(bs.map((b) => b.inputs.reduce((s, x) => s + x.length, 0))),
    keccakRepeatedFromEarlierBlocks: median(repeated),
    engineKeccakWordCalls: median(bs.map((b) => b.engineWords)),
    keccakPermutations: median(bs.map((b) => permutations(b.inputs))),
    hashMs: +median(bs.map((b) => hashMs(b.inputs, keccak256))).toFixed(2),
    permutationsOnlyMs: +median(bs.map((b) => permutationMs(b.inputs, keccak256))).toFixed(2),
    ...(opensslKeccak === undefined
      ? {}
      : {
          opensslHashMs: +median(bs.map((b) => hashMs(b.inputs, opensslKeccak))).toFixed(2),
          opensslPermutationsOnlyMs: +median(bs.map((b) => permutationMs(b.inputs, opensslKeccak))).toFixed(2),
        }),
    storeOps: median(bs.map((b) => b.ops.length)),
    storeBytes: median(bs.map((b) => opBytes(b.ops))),
    storeBatchMs: +(await storeMs(bs, false)).toFixed(2),
    storeOnePutMs: +(await storeMs(bs, true)).toFixed(2),
  };
}
// The app-block rates of this run are not reported: recording every input slows the blocks (bench/engine.ts has them).
console.log(JSON.stringify({ rounds, perBlock: out }));
