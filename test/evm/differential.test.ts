// Differential test: random programs (fixed seed) run on Kestrel's engine and on @ethereumjs/evm 10 (the oracle);
// status, gas used (after refunds), post-state root and logs must agree (ethereumjs reports its refund counter
// before the EIP-3529 cap, so the refund itself is compared through gas used). Programs are built from snippets that reach
// arithmetic, memory, storage, transient storage, logs, hashing, environment reads, calls of every kind (to
// contracts, precompiles, empty accounts, itself), creates, reverts, invalid opcodes and out-of-gas.
//   DIFF_CASES=N to run more than the default.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Address, BlockEnv, Tx } from '../../src/evm/types.ts';
import type { PreAccount } from '../../src/evm/statetest/fixture.ts';
import { applyDiff, logsHash, PreStateReader } from '../../src/evm/statetest/poststate.ts';
import { kestrelEngine } from '../../src/evm/statetest/kestrelEngine.ts';
import { stateRoot } from '../../src/evm/trie/stateRoot.ts';
import { keccak256 } from '../../src/evm/keccak.ts';
import { bytesToHex, hexToBytes, KECCAK_EMPTY } from '../../src/evm/bytes.ts';
import { ethereumjsEngine } from './oracle.ts';

const CASES = Number(process.env.DIFF_CASES ?? 150);
const SENDER = 0xa94f5374fce5edbc8e2a8697c15331677e6ebf0bn;
const A = 0xaaaa000000000000000000000000000000000001n;
const B = 0xbbbb000000000000000000000000000000000002n;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function program(r: () => number, depth: number): string {
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
  const hex = (bytes: number): string => {
    let s = '';
    for (let i = 0; i < bytes; i++)
      s += Math.floor(r() * 256)
        .toString(16)
        .padStart(2, '0');
    return s;
  };
  const word = (): string =>
    pick(['7f' + hex(32), '60' + hex(1), '61' + hex(2), '7f' + 'ff'.repeat(32), '7f80' + '00'.repeat(31), '5f']);
  const small = (max: number): string =>
    '61' +
    Math.floor(r() * max)
      .toString(16)
      .padStart(4, '0');
  const slot = (): string =>
    '60' +
    Math.floor(r() * 8)
      .toString(16)
      .padStart(2, '0');
  const target = (): string => '73' + pick([A, B, 1n, 2n, 3n, 4n, 5n, 9n, 0xdeadn, 0n]).toString(16).padStart(40, '0');
  let code = '';
  const n = 4 + Math.floor(r() * 14);
  for (let i = 0; i < n; i++) {
    switch (Math.floor(r() * 14)) {
      case 0:
      case 1:
        code +=
          word() +
          word() +
          pick([
            '01',
            '02',
            '03',
            '04',
            '05',
            '06',
            '07',
            '0a',
            '0b',
            '10',
            '11',
            '12',
            '13',
            '14',
            '16',
            '17',
            '18',
            '1a',
            '1b',
            '1c',
            '1d',
          ]) +
          slot() +
          '55';
        break;
      case 2:
        code += word() + word() + word() + pick(['08', '09']) + slot() + '55';
        break;
      case 3:
        code += word() + small(200) + pick(['52', '53']) + small(200) + '51' + slot() + '55';
        break;
      case 4:
        code += small(64) + small(128) + '20' + slot() + '55' + small(32) + small(64) + small(64) + '5e';
        break;
      case 5:
        code += word() + slot() + '5d' + slot() + '5c' + slot() + '55' + slot() + '54' + slot() + '55';
        break;
      case 6:
        code += word() + small(40) + small(100) + pick(['a0', 'a1']);
        break;
      case 7:
        code +=
          pick([
            '30',
            '32',
            '33',
            '34',
            '36',
            '38',
            '3a',
            '3d',
            '41',
            '42',
            '43',
            '44',
            '45',
            '46',
            '47',
            '48',
            '4a',
            '58',
            '59',
            '5a',
          ]) +
          slot() +
          '55';
        break;
      case 8:
        code += target() + pick(['31', '3b', '3f']) + slot() + '55';
        break;
      case 9: {
        // CALL-family with small gas and in/out ranges; result and return data size stored.
        const op = pick(['f1', 'f2', 'f4', 'fa']);
        const value = op === 'f1' || op === 'f2' ? pick(['5f', '6001', '61ffff']) : '';
        code +=
          '6020' +
          small(64) +
          small(64) +
          small(64) +
          value +
          target() +
          pick(['61ffff', '621fffff', '6201d4c0']) +
          op +
          slot() +
          '55' +
          '3d' +
          slot() +
          '55';
        if (r() < 0.3) code += '6020' + '5f' + '5f' + '3e';
        break;
      }
      case 10: {
        // CREATE/CREATE2 of initcode that returns a few bytes of memory (possibly 0xef-prefixed) or reverts.
        const init = pick(['600a600cf3', '60ef60005360016000f3', '6000600060fd', '5f5ff3', '6001600155']);
        code += '7f' + init.padEnd(64, '0') + '5f52';
        // CREATE2 takes a salt below size, offset and value; CREATE does not.
        const create2 = r() < 0.5;
        code +=
          (create2 ? word() : '') +
          '60' +
          (init.length / 2).toString(16).padStart(2, '0') +
          '5f' +
          pick(['5f', '6001']);
        code += (create2 ? 'f5' : 'f0') + slot() + '55';
        break;
      }
      case 11:
        if (depth === 0 && r() < 0.5) code += pick(['00', 'fe', '0c', '6000600060fd', '5ff3']);
        break;
      case 12:
        code += word() + word() + '0a' + slot() + '55';
        break;
      default:
        code += target() + 'ff';
        break;
    }
  }
  return code + pick(['00', '00', '6020' + '5f' + 'f3', '6004' + '5f' + 'fd']);
}

function preOf(r: () => number): Map<Address, PreAccount> {
  const acc = (code: string, balance: bigint, storage = new Map<bigint, bigint>()): PreAccount => {
    const c = hexToBytes(code);
    return { nonce: c.length ? 1n : 0n, balance, code: c, codeHash: c.length ? keccak256(c) : KECCAK_EMPTY, storage };
  };
  const st = new Map<bigint, bigint>([
    [1n, 5n],
    [3n, BigInt(Math.floor(r() * 1000) + 1)],
  ]);
  return new Map([
    [SENDER, acc('', 10n ** 20n)],
    [A, acc(program(r, 0), 10n ** 9n, st)],
    [B, acc(program(r, 1), 0n, new Map([[2n, 9n]]))],
  ]);
}

const block: BlockEnv = {
  number: 5n,
  timestamp: 1000n,
  coinbase: 0xc0ffeen,
  gasLimit: 30_000_000n,
  baseFee: 7n,
  prevRandao: 0x1234n,
  blobBaseFee: 1n,
  chainId: 1n,
};

test(`differential: ${CASES} random programs agree with @ethereumjs/evm (Prague)`, async () => {
  await kestrelEngine.init();
  await ethereumjsEngine.init();
  const r = rng(0x5eed);
  for (let i = 0; i < CASES; i++) {
    const pre = preOf(r);
    const tx: Tx = {
      type: 2,
      from: SENDER,
      to: A,
      nonce: 0n,
      gasLimit: BigInt(30_000 + Math.floor(r() * 400_000)),
      value: BigInt(Math.floor(r() * 3)),
      data: hexToBytes('0x' + '00'.repeat(Math.floor(r() * 40))),
      gasPrice: 0n,
      maxFeePerGas: 10n,
      maxPriorityFeePerGas: 1n,
      accessList: r() < 0.3 ? [{ address: B, storageKeys: [2n] }] : [],
      maxFeePerBlobGas: 0n,
      blobVersionedHashes: [],
      authorizationList: [],
    };
    const run = async (e: typeof kestrelEngine) => {
      const x = await e.execute(new PreStateReader(pre), block, tx, 'Prague', { excessBlobGas: 0n });
      assert.ok(x.outcome.ok, `case ${i}: rejected`);
      const res = x.outcome.result;
      return {
        ok: res.status === 'success',
        revert: res.status === 'revert',
        gasUsed: res.gasUsed,
        root: bytesToHex(stateRoot(applyDiff(pre, x.diff))),
        logs: bytesToHex(logsHash(res.logs)),
      };
    };
    const k = await run(kestrelEngine);
    const j = await run(ethereumjsEngine);
    assert.deepEqual(
      k,
      j,
      `case ${i}: code A ${bytesToHex(pre.get(A)!.code)} B ${bytesToHex(pre.get(B)!.code)} gas ${tx.gasLimit}`,
    );
  }
});
