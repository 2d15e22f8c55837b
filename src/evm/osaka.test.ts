// Osaka's rules in the engine, each against the fork before it: EIP-7939's CLZ, EIP-7825's gas cap, EIP-7918's
// blob fee reserve, EIP-7594's blob count per transaction.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { executeTransaction, initEngine, WorldState } from './index.ts';
import type { ExecOptions, Fork, Tx } from './types.ts';
import { hexToBytes } from '../primitives/bytes.ts';
import { blobBaseFee, GAS_PER_BLOB, nextExcessBlobGas } from './handler/fees.ts';
import { FORK_RULES, FORKS } from './forks.ts';
import { MemReader } from './testing/mem-reader.testing.ts';
import { testBlock, testTx } from './testing/engine-inputs.testing.ts';
import { clz } from './interpreter/arith.ts';

await initEngine();

const SENDER = 0x1000n;
const CONTRACT = 0x2000n;
const block = testBlock({ number: 10n, timestamp: 1000n, coinbase: 0xc0ffeen, gasLimit: 60_000_000n });

function tx(over: Partial<Tx>): Tx {
  return testTx({ from: SENDER, to: CONTRACT, gasLimit: 100_000n, maxPriorityFeePerGas: 2n, ...over });
}

/** Runs `code` at CONTRACT under `fork`; the sender can pay for any gas limit here. */
function exec(fork: Fork, code: string, over: Partial<Tx> = {}, extra: Partial<ExecOptions> = {}) {
  const r = new MemReader().set(SENDER, { balance: 10n ** 24n }).set(CONTRACT, { code: hexToBytes(code) });
  return executeTransaction(new WorldState(r), block, tx(over), { fork, rules: { burnBaseFee: true }, ...extra });
}

/** PUSH32 x, CLZ, then return the word. */
function clzCode(x: bigint): string {
  return '7f' + x.toString(16).padStart(64, '0') + '1e5f5260205ff3';
}

function clzOn(fork: Fork, x: bigint) {
  const out = exec(fork, clzCode(x));
  assert.ok(out.ok);
  return out.result;
}

describe('EIP-7939: CLZ', () => {
  test('0 → 256, 1 → 255, 2^255 → 0, 2^256 − 1 → 0, and every single bit', () => {
    const word = (r: { output: Uint8Array }) => BigInt('0x' + Buffer.from(r.output).toString('hex'));
    assert.equal(word(clzOn('Osaka', 0n)), 256n);
    assert.equal(word(clzOn('Osaka', 1n)), 255n);
    assert.equal(word(clzOn('Osaka', 1n << 255n)), 0n);
    assert.equal(word(clzOn('Osaka', (1n << 256n) - 1n)), 0n);
    for (let i = 0n; i < 256n; i++) {
      assert.equal(clz(1n << i), 255n - i, `bit ${i}`);
      assert.equal(clz((1n << i) | 1n), 255n - i, `bit ${i} and bit 0`);
      assert.equal(clz((1n << (i + 1n)) - 1n), 255n - i, `bits 0..${i}`);
    }
  });

  test('costs 5 gas, like MUL', () => {
    // The same program without the CLZ: the difference is the opcode's price.
    const withClz = clzOn('Osaka', 12345n).gasUsed;
    const without = exec('Osaka', '7f' + 12345n.toString(16).padStart(64, '0') + '5f5260205ff3');
    assert.ok(without.ok);
    assert.equal(withClz - without.result.gasUsed, 5n);
  });

  test('is an invalid opcode before Osaka', () => {
    for (const fork of ['Cancun', 'Prague'] as const) assert.equal(clzOn(fork, 1n).status, 'invalid_opcode');
  });

  test('an empty stack underflows', () => {
    const out = exec('Osaka', '1e');
    assert.ok(out.ok);
    assert.equal(out.result.status, 'stack_underflow');
  });
});

describe('EIP-7951: P256VERIFY at 0x100', () => {
  test('is warm from the start on Osaka (BALANCE costs 100, not 2600), cold before', () => {
    // PUSH2 0x0100, BALANCE, STOP against PUSH2 0x0100, POP, STOP: the difference is BALANCE's price.
    const cost = (fork: Fork) => {
      const a = exec(fork, '61010031' + '00');
      const b = exec(fork, '61010050' + '00');
      assert.ok(a.ok && b.ok);
      return a.result.gasUsed - b.result.gasUsed + 2n; // POP is 2
    };
    assert.equal(cost('Osaka'), 100n);
    assert.equal(cost('Prague'), 2600n);
  });

  test('a call with a short input succeeds with empty return data and costs 6900', () => {
    // STATICCALL(gas, 0x100, 0, 0, 0, 0), then return RETURNDATASIZE and the call's success flag.
    const code = '5f5f5f5f610100' + '5a' + 'fa' + '5f52' + '3d602052' + '60405ff3';
    const out = exec('Osaka', code);
    const before = exec('Prague', code);
    assert.ok(out.ok && before.ok);
    const hex = Buffer.from(out.result.output).toString('hex');
    assert.equal(hex, '00'.repeat(31) + '01' + '00'.repeat(32));
    // On Prague 0x100 is an empty account: a cold 2600, no code. On Osaka: warm 100 and the precompile's 6900.
    assert.equal(out.result.gasUsed - before.result.gasUsed, 100n + 6900n - 2600n);
  });
});

describe('EIP-7825: the transaction gas limit cap', () => {
  test('a 30,000,000-gas transaction is refused on Osaka with geth words, accepted on Prague', () => {
    const osaka = exec('Osaka', '00', { gasLimit: 30_000_000n });
    assert.equal(osaka.ok, false);
    assert.ok(!osaka.ok);
    assert.equal(osaka.reason, 'GAS_LIMIT_EXCEEDS_MAXIMUM');
    assert.equal(osaka.message, 'transaction gas limit too high (cap: 16777216, tx: 30000000)');
    assert.equal(exec('Prague', '00', { gasLimit: 30_000_000n }).ok, true);
  });

  test('2^24 itself is allowed; one more is not', () => {
    assert.equal(exec('Osaka', '00', { gasLimit: 1n << 24n }).ok, true);
    assert.equal(exec('Osaka', '00', { gasLimit: (1n << 24n) + 1n }).ok, false);
  });

  test('a call is no transaction: eth_call runs above the cap, as geth skips the check for it', () => {
    const out = exec('Osaka', '00', { gasLimit: 30_000_000n }, { isCall: true });
    assert.equal(out.ok, true);
  });
});

describe('EIP-7918: the blob base fee reserve price', () => {
  const target = 6n * GAS_PER_BLOB;

  test('below the target the excess resets to 0 on every fork', () => {
    for (const fork of FORKS) {
      assert.equal(nextExcessBlobGas({ excessBlobGas: 0n, blobGasUsed: 0n, baseFee: 10n ** 12n }, fork), 0n);
    }
  });

  test('a blob price under BLOB_BASE_COST × base fee keeps the excess and adds used × (max − target) / max', () => {
    // Blob fee 1 wei at excess `target`: 1 × 131072 < 8192 × 1 gwei, so the reserve applies on Osaka.
    const parent = { excessBlobGas: target, blobGasUsed: 9n * GAS_PER_BLOB, baseFee: 10n ** 9n };
    assert.equal(nextExcessBlobGas(parent, 'Osaka'), target + (9n * GAS_PER_BLOB * 3n) / 9n);
    assert.equal(nextExcessBlobGas(parent, 'Prague'), target + 9n * GAS_PER_BLOB - target);
  });

  test('a blob price above the reserve follows EIP-4844 on Osaka too', () => {
    const parent = { excessBlobGas: target, blobGasUsed: 9n * GAS_PER_BLOB, baseFee: 1n };
    assert.equal(nextExcessBlobGas(parent, 'Osaka'), 9n * GAS_PER_BLOB);
  });

  test('Osaka keeps Prague blob schedule (6 / 9 / 5007716) and its fee curve', () => {
    assert.deepEqual(FORK_RULES.Osaka.blobs, FORK_RULES.Prague.blobs);
    assert.deepEqual(FORK_RULES.Osaka.blobs, { target: 6, max: 9, updateFraction: 5007716n });
    assert.equal(blobBaseFee(0n, 'Osaka'), 1n);
    assert.equal(blobBaseFee(10_000_000n, 'Osaka'), blobBaseFee(10_000_000n, 'Prague'));
  });
});

describe('EIP-7594: at most 6 blobs in one transaction', () => {
  const blobTx = (count: number): Partial<Tx> => ({
    type: 3,
    maxFeePerBlobGas: 10n,
    blobVersionedHashes: Array.from({ length: count }, (_, i) => Uint8Array.from([0x01, ...new Uint8Array(30), i])),
  });

  test('7, 8 and 9 blobs are refused on Osaka with geth words, accepted on Prague; 6 pass on both', () => {
    for (const count of [7, 8, 9]) {
      const osaka = exec('Osaka', '00', blobTx(count));
      assert.ok(!osaka.ok, `${count} blobs`);
      assert.equal(osaka.reason, 'BLOB_COUNT');
      assert.equal(osaka.message, 'blob transaction has too many blobs');
      assert.equal(exec('Prague', '00', blobTx(count)).ok, true, `${count} blobs on Prague`);
    }
    assert.equal(exec('Osaka', '00', blobTx(6)).ok, true);
    assert.equal(exec('Prague', '00', blobTx(6)).ok, true);
  });

  test("10 blobs pass the block's blob gas on neither fork", () => {
    for (const fork of ['Prague', 'Osaka'] as const) {
      const out = exec(fork, '00', blobTx(10));
      assert.ok(!out.ok);
      assert.equal(out.message, 'blob gas limit exceeded');
    }
  });
});
