// The staking, distribution and slashing query services over keepers in memory: each method's answer decoded with
// cosmjs-types (the codec Cosmos clients use), the SDK's orders, pages and error classes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PubKey } from 'cosmjs-types/cosmos/crypto/ed25519/keys';
import * as D from 'cosmjs-types/cosmos/distribution/v1beta1/query';
import * as SL from 'cosmjs-types/cosmos/slashing/v1beta1/query';
import * as S from 'cosmjs-types/cosmos/staking/v1beta1/query';
import { InvalidParamsError, NotFoundError } from '../../../errors/index.ts';
import { toBech32 } from '../../../primitives/bech32.ts';
import type { BlockRecord } from '../../../store/records.ts';
import { bytesToBigint } from '../../../primitives/hex.ts';
import { MemState } from '../memState.testing.ts';
import { Modules } from '../modules.ts';
import { scratch } from '../precompiles/method.ts';
import { consAddressOf } from '../staking.ts';
import { DEC, defaultParams } from '../types.ts';
import type { ModuleQueries } from './common.ts';
import { distributionQueries } from './distribution.ts';
import { slashingQueries } from './slashing.ts';
import { stakingQueries } from './staking.ts';

const E18 = 10n ** 18n;
const addr = (b: number) => new Uint8Array(20).fill(b);
const alice = addr(0x22);
const bob = addr(0x11);
const carol = addr(0x33);
const acc = (a: Uint8Array) => toBech32(a, 'kestrel');
const valoper = (a: Uint8Array) => toBech32(a, 'kestrelvaloper');
const key = (b: number) => new Uint8Array(32).fill(b);
const params = { ...defaultParams('akestrel'), distributeFees: true };

// alice (valoper) and bob (valoper) bonded; carol delegates to alice, then undelegates and redelegates part of it;
// then alice's delegators get a reward deposit.
const base = new MemState();
for (const a of [alice, bob, carol]) base.setBalance(bytesToBigint(a), 1000n * E18);
const at = (h: bigint) => Modules.over(base, params, h, 1_000_000n + h);
const create = (m: Modules, op: Uint8Array, k: Uint8Array, amount: bigint) =>
  m.staking.createValidator({
    operator: op,
    consPubkey: k,
    description: { moniker: 'm', identity: '', website: '', securityContact: '', details: '' },
    commission: { rate: DEC / 10n, maxRate: DEC / 5n, maxChangeRate: DEC / 100n },
    minSelfDelegation: 1n,
    amount,
  });
{
  const m1 = at(1n);
  create(m1, alice, key(1), 100n * E18);
  create(m1, bob, key(2), 50n * E18);
  m1.endBlock();
  at(2n).staking.delegate(carol, alice, 30n * E18);
  const m3 = at(3n);
  m3.staking.undelegate(carol, alice, 5n * E18);
  m3.staking.redelegate(carol, alice, bob, 5n * E18);
  m3.distribution.depositValidatorRewards(bob, alice, 12n * E18);
}
const queryAt = (h: bigint) => () => Modules.over(scratch(base), params, h, 1_000_000n + h);
const block = { number: 4n } as BlockRecord;
const services = {
  staking: stakingQueries(queryAt(4n), 'kestrel'),
  distribution: distributionQueries(queryAt(4n), 'kestrel'),
  slashing: slashingQueries(queryAt(4n), 'kestrel'),
};
const ask = (q: ModuleQueries, method: string, req: Uint8Array) => q.query(`${q.prefix}${method}`, req, block);

describe('cosmos.staking.v1beta1.Query', () => {
  it('Validators: operator order, status filter, Any pubkey, Dec strings, pages with next_key', async () => {
    const all = S.QueryValidatorsResponse.decode(
      await ask(services.staking, 'Validators', S.QueryValidatorsRequest.encode({ status: '' }).finish()),
    );
    assert.deepEqual(
      all.validators.map((v) => v.operatorAddress),
      [valoper(bob), valoper(alice)],
    );
    assert.equal(all.pagination?.total, 2n);
    const a = all.validators[1]!;
    assert.equal(a.consensusPubkey?.typeUrl, '/cosmos.crypto.ed25519.PubKey');
    assert.deepEqual(PubKey.decode(a.consensusPubkey!.value).key, key(1));
    assert.equal(a.status, 3);
    assert.equal(a.tokens, (120n * E18).toString());
    assert.equal(a.delegatorShares, (120n * E18 * DEC).toString());
    assert.equal(a.commission.commissionRates.rate, (DEC / 10n).toString());
    assert.equal(a.commission.updateTime.seconds, 1_000_001n);
    const page1 = S.QueryValidatorsResponse.decode(
      await ask(
        services.staking,
        'Validators',
        S.QueryValidatorsRequest.encode({
          status: 'BOND_STATUS_BONDED',
          pagination: { key: new Uint8Array(), offset: 0n, limit: 1n, countTotal: true, reverse: false },
        }).finish(),
      ),
    );
    assert.equal(page1.validators.length, 1);
    assert.deepEqual(page1.pagination?.nextKey, Uint8Array.from([20, ...alice]));
    const page2 = S.QueryValidatorsResponse.decode(
      await ask(
        services.staking,
        'Validators',
        S.QueryValidatorsRequest.encode({
          status: 'BOND_STATUS_BONDED',
          pagination: { key: page1.pagination!.nextKey, offset: 0n, limit: 1n, countTotal: false, reverse: false },
        }).finish(),
      ),
    );
    assert.equal(page2.validators[0]!.operatorAddress, valoper(alice));
    assert.equal(page2.pagination?.nextKey.length, 0);
    const none = S.QueryValidatorsResponse.decode(
      await ask(
        services.staking,
        'Validators',
        S.QueryValidatorsRequest.encode({ status: 'BOND_STATUS_UNBONDED' }).finish(),
      ),
    );
    assert.equal(none.validators.length, 0);
    await assert.rejects(
      ask(services.staking, 'Validators', S.QueryValidatorsRequest.encode({ status: 'bonded' }).finish()),
      (e: Error) => e instanceof InvalidParamsError && e.message === 'invalid validator status bonded',
    );
  });

  it('Delegation, DelegatorDelegations, ValidatorDelegations: shares and balance; SDK errors', async () => {
    const d = S.QueryDelegationResponse.decode(
      await ask(
        services.staking,
        'Delegation',
        S.QueryDelegationRequest.encode({ delegatorAddr: acc(carol), validatorAddr: valoper(alice) }).finish(),
      ),
    ).delegationResponse!;
    assert.equal(d.delegation.delegatorAddress, acc(carol));
    assert.equal(d.delegation.shares, (20n * E18 * DEC).toString());
    assert.deepEqual(d.balance, { denom: 'akestrel', amount: (20n * E18).toString() });
    const mine = S.QueryDelegatorDelegationsResponse.decode(
      await ask(
        services.staking,
        'DelegatorDelegations',
        S.QueryDelegatorDelegationsRequest.encode({ delegatorAddr: acc(carol) }).finish(),
      ),
    );
    assert.deepEqual(
      mine.delegationResponses.map((r) => [r.delegation.validatorAddress, r.balance.amount]),
      [
        [valoper(bob), (5n * E18).toString()],
        [valoper(alice), (20n * E18).toString()],
      ],
    );
    const toAlice = S.QueryValidatorDelegationsResponse.decode(
      await ask(
        services.staking,
        'ValidatorDelegations',
        S.QueryValidatorDelegationsRequest.encode({ validatorAddr: valoper(alice) }).finish(),
      ),
    );
    assert.deepEqual(
      toAlice.delegationResponses.map((r) => r.delegation.delegatorAddress),
      [acc(alice), acc(carol)],
    );
    const req = (delegatorAddr: string, validatorAddr: string) =>
      ask(services.staking, 'Delegation', S.QueryDelegationRequest.encode({ delegatorAddr, validatorAddr }).finish());
    await assert.rejects(req(acc(bob), valoper(alice)), (e: Error) => {
      assert.ok(e instanceof NotFoundError, String(e));
      assert.equal(e.message, `delegation with delegator ${acc(bob)} not found for validator ${valoper(alice)}`);
      return true;
    });
    await assert.rejects(req('', valoper(alice)), /^InvalidParamsError: delegator address cannot be empty$/);
    await assert.rejects(req(acc(bob), ''), /validator address cannot be empty/);
    await assert.rejects(
      req(acc(bob), acc(alice)),
      (e: Error) =>
        e instanceof InvalidParamsError && e.message === 'invalid Bech32 prefix; expected kestrelvaloper, got kestrel',
    );
    await assert.rejects(req(acc(bob).slice(0, -1) + 'x', valoper(alice)), /decoding bech32 failed: invalid checksum/);
    await assert.rejects(
      ask(services.staking, 'Validator', S.QueryValidatorRequest.encode({ validatorAddr: valoper(carol) }).finish()),
      (e: Error) => e instanceof NotFoundError && e.message === `validator ${valoper(carol)} not found`,
    );
  });

  it('unbonding and redelegation entries; pool and params', async () => {
    const ub = S.QueryUnbondingDelegationResponse.decode(
      await ask(
        services.staking,
        'UnbondingDelegation',
        S.QueryUnbondingDelegationRequest.encode({ delegatorAddr: acc(carol), validatorAddr: valoper(alice) }).finish(),
      ),
    ).unbond;
    assert.equal(ub.entries.length, 1);
    assert.equal(ub.entries[0]!.balance, (5n * E18).toString());
    assert.equal(ub.entries[0]!.creationHeight, 3n);
    assert.equal(ub.entries[0]!.completionTime.seconds, 1_000_003n + 21n * 86400n);
    await assert.rejects(
      ask(
        services.staking,
        'UnbondingDelegation',
        S.QueryUnbondingDelegationRequest.encode({ delegatorAddr: acc(carol), validatorAddr: valoper(bob) }).finish(),
      ),
      NotFoundError,
    );
    const red = S.QueryRedelegationsResponse.decode(
      await ask(
        services.staking,
        'Redelegations',
        S.QueryRedelegationsRequest.encode({
          delegatorAddr: acc(carol),
          srcValidatorAddr: '',
          dstValidatorAddr: '',
        }).finish(),
      ),
    );
    assert.equal(red.redelegationResponses.length, 1);
    assert.equal(red.redelegationResponses[0]!.redelegation.validatorDstAddress, valoper(bob));
    assert.equal(red.redelegationResponses[0]!.entries[0]!.balance, (5n * E18).toString());
    const pool = S.QueryPoolResponse.decode(await ask(services.staking, 'Pool', new Uint8Array())).pool;
    assert.deepEqual(pool, { bondedTokens: (175n * E18).toString(), notBondedTokens: (5n * E18).toString() });
    const p = S.QueryParamsResponse.decode(await ask(services.staking, 'Params', new Uint8Array())).params;
    assert.equal(p.unbondingTime.seconds, 21n * 86400n);
    assert.equal(p.bondDenom, 'akestrel');
    assert.equal(p.maxEntries, 7);
    assert.equal(p.minCommissionRate, '0');
  });
});

describe('cosmos.distribution.v1beta1.Query', () => {
  it('rewards as the keeper computes them at the block, outstanding, commission, community pool', async () => {
    const own = Modules.over(scratch(base), params, 4n, 1_000_004n);
    const expected = own.distribution.pendingRewards(carol, alice);
    // carol holds 20 of alice's 120 tokens: a sixth of the deposit, up to F1's truncation.
    assert.ok(expected > 2n * E18 * DEC - DEC && expected <= 2n * E18 * DEC, `carol's reward ${expected}`);
    const r = D.QueryDelegationRewardsResponse.decode(
      await ask(
        services.distribution,
        'DelegationRewards',
        D.QueryDelegationRewardsRequest.encode({
          delegatorAddress: acc(carol),
          validatorAddress: valoper(alice),
        }).finish(),
      ),
    );
    assert.deepEqual(r.rewards, [{ denom: 'akestrel', amount: expected.toString() }]);
    const total = D.QueryDelegationTotalRewardsResponse.decode(
      await ask(
        services.distribution,
        'DelegationTotalRewards',
        D.QueryDelegationTotalRewardsRequest.encode({ delegatorAddress: acc(carol) }).finish(),
      ),
    );
    assert.deepEqual(
      total.rewards.map((x) => [x.validatorAddress, x.reward]),
      [
        [valoper(bob), []],
        [valoper(alice), [{ denom: 'akestrel', amount: expected.toString() }]],
      ],
    );
    assert.deepEqual(total.total, [{ denom: 'akestrel', amount: expected.toString() }]);
    const out = D.QueryValidatorOutstandingRewardsResponse.decode(
      await ask(
        services.distribution,
        'ValidatorOutstandingRewards',
        D.QueryValidatorOutstandingRewardsRequest.encode({ validatorAddress: valoper(alice) }).finish(),
      ),
    );
    assert.equal(out.rewards.rewards[0]!.amount, (12n * E18 * DEC).toString());
    const comm = D.QueryValidatorCommissionResponse.decode(
      await ask(
        services.distribution,
        'ValidatorCommission',
        D.QueryValidatorCommissionRequest.encode({ validatorAddress: valoper(alice) }).finish(),
      ),
    );
    assert.deepEqual(comm.commission.commission, [], 'a deposit pays no commission');
    const dp = D.QueryParamsResponse.decode(await ask(services.distribution, 'Params', new Uint8Array())).params;
    assert.equal(dp.communityTax, (DEC / 50n).toString());
    assert.equal(dp.withdrawAddrEnabled, true);
    await assert.rejects(
      ask(
        services.distribution,
        'DelegationRewards',
        D.QueryDelegationRewardsRequest.encode({
          delegatorAddress: acc(bob),
          validatorAddress: valoper(carol),
        }).finish(),
      ),
      (e: Error) => e instanceof NotFoundError && e.message === `${valoper(carol)}: validator does not exist`,
    );
    await assert.rejects(
      ask(
        services.distribution,
        'DelegationRewards',
        D.QueryDelegationRewardsRequest.encode({
          delegatorAddress: acc(bob),
          validatorAddress: valoper(alice),
        }).finish(),
      ),
      (e: Error) => e instanceof NotFoundError && e.message === 'delegation does not exist',
    );
    await assert.rejects(
      ask(
        services.distribution,
        'ValidatorSlashes',
        D.QueryValidatorSlashesRequest.encode({
          validatorAddress: valoper(alice),
          startingHeight: 5n,
          endingHeight: 4n,
        }).finish(),
      ),
      /starting height greater than ending height \(5 > 4\)/,
    );
  });

  it('a query leaves the state as it was (the period ends on a scratch copy)', async () => {
    const before = Modules.over(base, params, 4n, 1_000_004n).distribution.currentRewards(alice);
    await ask(
      services.distribution,
      'DelegationRewards',
      D.QueryDelegationRewardsRequest.encode({
        delegatorAddress: acc(carol),
        validatorAddress: valoper(alice),
      }).finish(),
    );
    assert.deepEqual(Modules.over(base, params, 4n, 1_000_004n).distribution.currentRewards(alice), before);
  });
});

describe('cosmos.slashing.v1beta1.Query', () => {
  it('signing infos by valcons address, params with Dec bytes', async () => {
    const infos = SL.QuerySigningInfosResponse.decode(
      await ask(services.slashing, 'SigningInfos', SL.QuerySigningInfosRequest.encode({}).finish()),
    );
    const cons = [key(1), key(2)].map((k) => toBech32(consAddressOf(k), 'kestrelvalcons')).sort();
    assert.deepEqual(infos.info.map((i) => i.address).sort(), cons);
    assert.equal(infos.info[0]!.startHeight, 1n);
    const one = SL.QuerySigningInfoResponse.decode(
      await ask(
        services.slashing,
        'SigningInfo',
        SL.QuerySigningInfoRequest.encode({ consAddress: cons[0]! }).finish(),
      ),
    );
    assert.equal(one.valSigningInfo.address, cons[0]);
    assert.equal(one.valSigningInfo.jailedUntil.seconds, 0n);
    await assert.rejects(
      ask(
        services.slashing,
        'SigningInfo',
        SL.QuerySigningInfoRequest.encode({ consAddress: toBech32(addr(9), 'kestrelvalcons') }).finish(),
      ),
      /SigningInfo not found for validator kestrelvalcons1/,
    );
    await assert.rejects(
      ask(services.slashing, 'SigningInfo', SL.QuerySigningInfoRequest.encode({ consAddress: '' }).finish()),
      (e: Error) => e instanceof InvalidParamsError && e.message === 'invalid request',
    );
    const p = SL.QueryParamsResponse.decode(await ask(services.slashing, 'Params', new Uint8Array())).params;
    assert.equal(p.signedBlocksWindow, 100n);
    assert.equal(new TextDecoder().decode(p.minSignedPerWindow), (DEC / 2n).toString());
    assert.equal(p.downtimeJailDuration.seconds, 600n);
  });

  it('an unknown method of a known service is refused', async () => {
    await assert.rejects(ask(services.slashing, 'Nope', new Uint8Array()), /unknown query path/);
  });
});
