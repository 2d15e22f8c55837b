import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SimulateError } from '../../../errors/index.ts';
import { checkLimits, planChain, precheck } from './plan.ts';

const reason = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof SimulateError);
    return `${e.reason}: ${e.message}`;
  }
  return 'no error';
};

describe('eth_simulateV1 plan', () => {
  it('numbers and times default to +1 and +12 s; gaps become empty blocks', () => {
    const plans = planChain([{ calls: [] }, { blockOverrides: { number: 14n }, calls: [] }], {
      number: 10n,
      time: 100n,
    });
    assert.deepEqual(
      plans.map((p) => [p.number, p.time]),
      [
        [11n, 112n],
        [12n, 124n],
        [13n, 136n],
        [14n, 148n],
      ],
    );
  });

  it('refuses numbers and times out of order, and too many blocks', () => {
    assert.equal(
      reason(() => planChain([{ blockOverrides: { number: 10n }, calls: [] }], { number: 10n, time: 0n })),
      'BLOCK_NUMBER_INVALID: block numbers must be in order: 10 <= 10',
    );
    assert.equal(
      reason(() => planChain([{ blockOverrides: { time: 5n }, calls: [] }], { number: 1n, time: 5n })),
      'BLOCK_TIMESTAMP_INVALID: block timestamps must be in order: 5 <= 5',
    );
    assert.equal(
      reason(() => planChain([{ blockOverrides: { number: 300n }, calls: [] }], { number: 1n, time: 0n })),
      'CLIENT_LIMIT_EXCEEDED: too many blocks',
    );
    assert.equal(
      reason(() => checkLimits([])),
      'INVALID_PARAMS: empty input',
    );
    assert.equal(
      reason(() => checkLimits([{ calls: Array.from({ length: 5001 }, () => ({})) }])),
      'CLIENT_LIMIT_EXCEEDED: too many calls in block: 5001 > 5000',
    );
  });

  it('prechecks in geth order with geth wording', () => {
    const tx = {
      from: '0xAb',
      nonce: 1n,
      gas: 30000n,
      value: 5n,
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
      intrinsicGas: 21000n,
    };
    const rich = { nonce: 1n, balance: 10n ** 18n };
    assert.equal(
      reason(() => precheck(tx, rich, 1n, true)),
      'no error',
    );
    assert.equal(
      reason(() => precheck({ ...tx, nonce: 0n }, rich, 1n, true)),
      'NONCE_TOO_LOW: err: nonce too low: address 0xAb, tx: 0 state: 1 (supplied gas 30000)',
    );
    assert.equal(
      reason(() => precheck({ ...tx, nonce: 0n }, rich, 1n, false)),
      'no error',
      'nonces only with validation',
    );
    assert.equal(
      reason(() => precheck(tx, rich, 3n, false)),
      'BASE_FEE_TOO_LOW: err: max fee per gas less than block base fee: address 0xAb, maxFeePerGas: 2, baseFee: 3 (supplied gas 30000)',
    );
    assert.equal(
      reason(() => precheck(tx, { nonce: 1n, balance: 10n }, 1n, true)),
      'INSUFFICIENT_FUNDS: err: insufficient funds for gas * price + value: address 0xAb have 10 want 60005 (supplied gas 30000)',
    );
    assert.equal(
      reason(() => precheck({ ...tx, gas: 100n }, rich, 1n, true)),
      'INTRINSIC_GAS: err: intrinsic gas too low: have 100, want 21000 (supplied gas 100)',
    );
  });
});
