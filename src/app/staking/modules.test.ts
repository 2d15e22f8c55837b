// The modules on an in-memory state: F1 rewards against an independent per-block, per-delegator computation (to
// the last unit, with amounts that divide evenly), slashing of stake and of later unbonding entries, the supply
// invariant, and the validator set that follows stake.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BONDED_POOL, DISTRIBUTION_POOL, FEE_COLLECTOR, NOT_BONDED_POOL, supplyDelta } from './env.ts';
import { MemState } from './memState.testing.ts';
import { Modules } from './modules.ts';
import { consAddressOf } from './staking.ts';
import { DEC, defaultParams, type StakingParams } from './types.ts';
import { bytesToBigint } from '../../primitives/hex.ts';

const COIN = 10n ** 18n;

const addr = (n: number) => Uint8Array.from({ length: 20 }, (_, i) => (i === 19 ? n : 0));
const key = (n: number) => Uint8Array.from({ length: 32 }, () => n);
const A = addr(1);
const B = addr(2);
const D = addr(3);

function params(): StakingParams {
  return { ...defaultParams('atest'), communityTax: DEC / 50n, distributeFees: true, unbondingTime: 100n };
}

function setup() {
  const state = new MemState();
  for (const a of [A, B, D]) state.setBalance(bytesToBigint(a), 1000n * COIN);
  const p = params();
  let height = 1n;
  let time = 1000n;
  const at = () => Modules.over(state, p, height, time);
  const create = (op: Uint8Array, k: number, rate: bigint, amount: bigint) =>
    at().staking.createValidator({
      operator: op,
      consPubkey: key(k),
      description: { moniker: 'v', identity: '', website: '', securityContact: '', details: '' },
      commission: { rate, maxRate: DEC / 2n, maxChangeRate: DEC / 100n },
      minSelfDelegation: 1n,
      amount,
    });
  /** One block: fees into the collector during it, then (next block's begin) allocation to the last set. */
  const block = (fees: bigint) => {
    height++;
    time += 5n;
    const m = at();
    const votes = m.staking.lastValidatorPowers().map(([op, power]) => ({
      consAddress: consAddressOf(m.staking.validator(op)!.consPubkey),
      power,
      signed: true,
    }));
    m.beginBlock({ votes, misbehavior: [], elapsed: 5n });
    state.setBalance(FEE_COLLECTOR, state.balance(FEE_COLLECTOR) + fees);
    state.setBalance(bytesToBigint(B), state.balance(bytesToBigint(B)) - fees); // B pays the block's fees
    return m.endBlock();
  };
  return { state, at, create, block, p };
}

test('F1: withdrawn rewards, commission and community pool equal a per-block computation to the last unit', () => {
  const { state, at, create, block } = setup();
  create(A, 1, DEC / 10n, 100n * COIN);
  create(B, 2, DEC / 20n, 200n * COIN);
  at().staking.delegate(D, A, 100n * COIN);
  const updates = block(0n); // the set: A 200, B 200
  assert.deepEqual(
    updates.map((u) => u.power),
    [200n, 200n],
  );
  // Independent: each block's fee F, after a 2% tax, splits by power (1/2 each); A keeps 10%, D holds half of A.
  const F = COIN;
  let dExpected = 0n;
  let commissionA = 0n;
  let pool = 0n;
  const blocks = 8;
  for (let i = 0; i < blocks; i++) block(F);
  block(0n); // the last block's fees are allocated at the next begin
  for (let i = 0; i < blocks; i++) {
    const toValidators = (F * 98n) / 100n;
    const rewardA = toValidators / 2n;
    const commission = rewardA / 10n;
    commissionA += commission;
    dExpected += (rewardA - commission) / 2n;
    pool += F - toValidators;
  }
  const before = state.balance(bytesToBigint(D));
  const paid = at().distribution.withdrawRewards(D, A);
  assert.equal(paid, dExpected);
  assert.equal(state.balance(bytesToBigint(D)) - before, dExpected);
  assert.equal(at().distribution.commission(A), commissionA * DEC);
  assert.equal(at().distribution.withdrawCommission(A), commissionA);
  assert.equal(at().distribution.communityPool(), pool * DEC);
  // A's own delegation earned as much as D's (same stake).
  assert.equal(at().distribution.pendingRewards(A, A), dExpected * DEC);
});

test('a slash: F1 rewards follow the slashed stake; later unbonding entries pay the fraction; supply = balances', () => {
  const { state, at, create, block } = setup();
  const supply0 = state.total();
  create(A, 1, 0n, 100n * COIN);
  create(B, 2, 0n, 200n * COIN);
  at().staking.delegate(D, A, 100n * COIN);
  block(0n);
  const F = COIN;
  block(F);
  block(F);
  const infraction = at().env.height;
  // D undelegates 20 after the infraction: that entry pays its share of the slash.
  block(0n);
  at().staking.undelegate(D, A, 20n * COIN);
  const m = at();
  const burned = m.staking.slash(consAddressOf(key(1)), infraction, 200n, DEC / 10n);
  // 10% of the 200 staked at the infraction: 2 from the 20 unbonding, 18 from the validator's 180.
  assert.equal(burned, 20n * COIN);
  assert.equal(m.staking.validator(A)!.tokens, 180n * COIN - 18n * COIN);
  assert.equal(m.staking.unbondingEntries(D, A)[0]!.balance, 18n * COIN);
  assert.equal(supplyDelta(state), -20n * COIN);
  assert.equal(state.total(), supply0 - 20n * COIN, 'every token is a balance: accounts, pools, distribution');
  // Rewards after the slash follow D's slashed stake: A has 162 tokens, D's 80 become 72; B 200.
  block(F);
  block(0n);
  const dBefore = state.balance(bytesToBigint(D));
  at().distribution.withdrawRewards(D, A);
  const got = state.balance(bytesToBigint(D)) - dBefore;
  // The fees before the undelegate were paid by it. The one block after the slash: A has power 162 of 362, its
  // per-token ratio is the reward over 162 tokens (truncated), and D's F1 stake is its 80 after the undelegate
  // times (1 - 18/180) = 72.
  const feeMultiplier = (F * DEC * (DEC - DEC / 50n)) / DEC;
  const fraction = (162n * DEC * DEC) / (362n * DEC);
  const reward = (feeMultiplier * fraction) / DEC;
  const ratio = reward / (162n * COIN);
  const expected = (ratio * 72n * COIN * DEC) / DEC / DEC;
  assert.equal(got, expected);
  assert.equal(state.balance(BONDED_POOL) + state.balance(NOT_BONDED_POOL), 162n * COIN + 200n * COIN + 18n * COIN);
  assert.ok(state.balance(DISTRIBUTION_POOL) >= 0n);
  // The unbonding entry matures after the unbonding time and pays what the slash left.
  const held = state.balance(bytesToBigint(D));
  for (let i = 0; i < 25; i++) block(0n);
  assert.equal(state.balance(bytesToBigint(D)) - held, 18n * COIN);
  assert.equal(state.total(), supply0 - 20n * COIN);
});

test('the set follows stake: top max validators by power; a jailed one leaves with power 0', () => {
  const { at, create, block, p } = setup();
  p.maxValidators = 2;
  create(A, 1, 0n, 10n * COIN);
  create(B, 2, 0n, 20n * COIN);
  create(D, 3, 0n, 5n * COIN);
  const first = block(0n);
  assert.deepEqual(first.map((u) => u.power).sort(), [10n, 20n]);
  at().staking.delegate(D, D, 10n * COIN); // D: 15 > A: 10
  const swap = block(0n);
  assert.deepEqual(swap.map((u) => [u.consPubkey[0], u.power]).sort(), [
    [1, 0n],
    [3, 15n],
  ]);
  assert.equal(at().staking.validator(A)!.status, 2, 'A is unbonding');
  const m = at();
  m.staking.jail(m.staking.validator(B)!);
  const jailed = block(0n);
  assert.deepEqual(jailed.map((u) => [u.consPubkey[0], u.power]).sort(), [
    [1, 10n],
    [2, 0n],
  ]);
  for (let i = 0; i < 25; i++) block(0n);
  assert.equal(at().staking.validator(B)!.status, 1, 'unbonded after the unbonding time');
});
