// x/slashing's double-sign path on an in-memory module state, block by block: the slash at distribution height
// H − 1 (unbonding entries created since pay initialBalance × fraction, earlier ones nothing), the validator's tokens
// paying the rest, jailed until 9999-12-31, tombstoned, out of the set at the end of the block, unjail refused, and
// later evidence for the same key ignored.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bytesToBigint } from '../../primitives/hex.ts';
import { BONDED_POOL, NOT_BONDED_POOL, supplyDelta } from './env.ts';
import { MemState } from './memState.testing.ts';
import { Modules } from './modules.ts';
import { DOUBLE_SIGN_JAIL_END } from './slashing.ts';
import { consAddressOf } from './staking.ts';
import { BondStatus, DEC, defaultParams, type StakingParams } from './types.ts';

const COIN = 10n ** 18n;

const operator = new Uint8Array(20).fill(0xaa);
const delegator = new Uint8Array(20).fill(0xdd);
const pubkey = new Uint8Array(32).fill(7);
const consAddress = consAddressOf(pubkey);

/** A chain of blocks over one state: `block(h)` gives the modules at height h (time 10 s a block). */
function chain(params: StakingParams = defaultParams('akestrel')) {
  const state = new MemState();
  state.setBalance(bytesToBigint(operator), 1000n * COIN);
  state.setBalance(bytesToBigint(delegator), 1000n * COIN);
  return { state, block: (h: number) => Modules.over(state, params, BigInt(h), 1_000_000n + 10n * BigInt(h)) };
}

function createValidator(m: Modules, amount: bigint): void {
  m.staking.createValidator({
    operator,
    consPubkey: pubkey,
    description: { moniker: 'v', identity: '', website: '', securityContact: '', details: '' },
    commission: { rate: DEC / 10n, maxRate: DEC / 5n, maxChangeRate: DEC / 100n },
    minSelfDelegation: 1n,
    amount,
  });
}

describe('double signing (x/slashing + x/staking)', () => {
  it('slashes the stake at H − 1: entries created since pay their share, the validator the rest; jails and tombstones', () => {
    const { state, block } = chain();
    let m = block(1);
    createValidator(m, 10n * COIN);
    m.endBlock();
    block(2).staking.delegate(delegator, operator, 10n * COIN);
    block(3).staking.undelegate(delegator, operator, 2n * COIN); // before H − 1: not slashed
    block(6).staking.undelegate(delegator, operator, COIN); // at H − 1
    block(7).staking.undelegate(delegator, operator, COIN); // at H
    // Evidence for height 7 in block 8: the power CometBFT had at 7 is the stake at the end of block 5, 18 coins.
    m = block(8);
    const bondedBefore = state.balance(BONDED_POOL);
    const notBondedBefore = state.balance(NOT_BONDED_POOL);
    m.beginBlock({ votes: [], misbehavior: [{ consAddress, height: 7n, power: 18n }], elapsed: 10n });
    const entries = m.staking.unbondingEntries(delegator, operator);
    assert.deepEqual(
      entries.map((e) => [e.creationHeight, e.initialBalance, e.balance]),
      [
        [3n, 2n * COIN, 2n * COIN],
        [6n, COIN, COIN - COIN / 20n],
        [7n, COIN, COIN - COIN / 20n],
      ],
    );
    // 18 × 0.05 = 0.9 coins in all: 0.1 from the two entries, 0.8 = 5% of the validator's 16 from its tokens.
    const v = m.staking.validator(operator)!;
    assert.equal(v.tokens, 16n * COIN - (16n * COIN) / 20n);
    assert.equal(v.jailed, true);
    assert.equal(state.balance(BONDED_POOL), bondedBefore - (8n * COIN) / 10n);
    assert.equal(state.balance(NOT_BONDED_POOL), notBondedBefore - COIN / 10n);
    assert.equal(supplyDelta(state), -(9n * COIN) / 10n);
    const info = m.slashing.signingInfo(consAddress)!;
    assert.equal(info.tombstoned, true);
    assert.equal(info.jailedUntil, DOUBLE_SIGN_JAIL_END);
    // The delegation is worth 5% less: the 6 coins left → 5.7.
    const shares = m.staking.delegation(delegator, operator)!;
    assert.equal((shares * v.tokens) / v.delegatorShares, 6n * COIN - (6n * COIN) / 20n);
    // Out of the set at the end of the block.
    assert.deepEqual(
      m.endBlock().map((u) => u.power),
      [0n],
    );
    assert.equal(m.staking.validator(operator)!.status, BondStatus.Unbonding);

    // Unjail: refused for ever, even far past any jail time.
    assert.throws(() => block(1_000_000).slashing.unjail(operator), /validator still jailed; cannot be unjailed/);
    // Evidence of another height for the tombstoned key changes nothing.
    m = block(9);
    const tokens = m.staking.validator(operator)!.tokens;
    m.beginBlock({ votes: [], misbehavior: [{ consAddress, height: 8n, power: 18n }], elapsed: 10n });
    assert.equal(m.staking.validator(operator)!.tokens, tokens);
  });
});

describe('the slash fraction distribution records (F1)', () => {
  it('is the effective fraction rounded up, as the SDK’s QuoRoundUp', () => {
    const { block } = chain();
    const m = block(1);
    createValidator(m, 3n * COIN + 1n); // power 3, and one wei that makes 0.15 coin not exactly 5% of the tokens
    m.endBlock();
    const b = block(3);
    b.beginBlock({ votes: [], misbehavior: [{ consAddress, height: 2n, power: 3n }], elapsed: 10n });
    assert.equal(b.staking.validator(operator)!.tokens, 3n * COIN + 1n - (3n * COIN) / 20n);
    // 0.15e18 / (3e18 + 1) = 0.049999999999999999983…: truncated it would record …999, which leaves each delegation's
    // F1 stake after the slash a little above what its shares are worth.
    assert.deepEqual(
      b.distribution.slashEvents(operator).map((e) => e.fraction),
      [DEC / 20n],
    );
  });
});
