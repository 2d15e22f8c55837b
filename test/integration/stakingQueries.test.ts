// The staking, distribution and slashing query services from Cosmos clients on a dev node whose fees go to the
// stakers: a validator created and delegated to through the staking precompile with ethers, then gRPC (reflection
// listing the services, raw calls at an explicit height), cosmjs's Staking/Distribution/Slashing extensions over
// abci_query, and the precompiles' own views (eth_call) all agree at the same height; bad input gets the SDK's codes.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { after, afterEach, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import {
  QueryClient,
  setupDistributionExtension,
  setupSlashingExtension,
  setupStakingExtension,
} from '@cosmjs/stargate';
import { Comet38Client } from '@cosmjs/tendermint-rpc';
import { bech32 } from 'bech32';
import * as D from 'cosmjs-types/cosmos/distribution/v1beta1/query';
import * as SL from 'cosmjs-types/cosmos/slashing/v1beta1/query';
import * as S from 'cosmjs-types/cosmos/staking/v1beta1/query';
import { PubKey } from 'cosmjs-types/cosmos/crypto/ed25519/keys';
import { Contract, Interface, JsonRpcProvider, Wallet, parseEther, type TransactionReceipt } from 'ethers';
import { CHAIN_ID, nonCoinbaseAccounts } from '../helpers/accounts.ts';
import { cli } from '../helpers/cosmos.ts';
import { type KestrelNode, printLogsOnFailure, REPO_ROOT, startNode } from '../helpers/node.ts';
import { DISTRIBUTION, distributionAbi, SLASHING, slashingAbi, STAKING, stakingAbi } from '../helpers/precompileAbi.ts';

const hexBytes = (h: string) => Buffer.from(h.slice(2), 'hex');
const acc = (h: string) => bech32.encode('kestrel', bech32.toWords(hexBytes(h)));
const valoper = (h: string) => bech32.encode('kestrelvaloper', bech32.toWords(hexBytes(h)));
const moduleAddress = (name: string) =>
  '0x' + createHash('sha256').update(name).digest().subarray(0, 20).toString('hex');

/** A raw-bytes gRPC client: requests and answers stay protobuf, decoded with cosmjs-types as cosmjs would. */
function rawGrpc(address: string) {
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  const id = (b: Buffer | Uint8Array) => Buffer.from(b);
  return {
    call(path: string, req: Uint8Array, height?: number): Promise<Uint8Array> {
      const md = new grpc.Metadata();
      if (height !== undefined) md.set('x-cosmos-block-height', String(height));
      return new Promise((res, rej) =>
        client.makeUnaryRequest(path, id, id, Buffer.from(req), md, { deadline: Date.now() + 15_000 }, (e, out) =>
          e ? rej(e) : res(new Uint8Array(out!)),
        ),
      );
    },
    close: () => client.close(),
  };
}

/** list_services through reflection v1. */
async function listServices(address: string): Promise<string[]> {
  const file = join(REPO_ROOT, 'node_modules/@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto');
  const pkg = grpc.loadPackageDefinition(protoLoader.loadSync(file, { keepCase: true, defaults: true })) as any;
  const client = new pkg.grpc.reflection.v1.ServerReflection(address, grpc.credentials.createInsecure());
  try {
    return await new Promise((res, rej) => {
      const stream = client.ServerReflectionInfo();
      stream.on('data', (m: any) => {
        res(m.list_services_response.service.map((s: any) => s.name));
        stream.end();
      });
      stream.on('error', rej);
      stream.write({ list_services: '' });
    });
  } finally {
    client.close();
  }
}

describe('staking, distribution and slashing queries from Cosmos clients', { timeout: 120_000 }, () => {
  let node: KestrelNode;
  let provider: JsonRpcProvider;
  let alice: Wallet;
  let bob: Wallet;
  let g: ReturnType<typeof rawGrpc>;
  let comet: Comet38Client;
  let height: number;
  let tmp: string | undefined;
  const pubkey = randomBytes(32);
  const consAddr = createHash('sha256').update(pubkey).digest().subarray(0, 20);
  const valcons = bech32.encode('kestrelvalcons', bech32.toWords(consAddr));

  afterEach(printLogsOnFailure(() => node));
  before(async () => {
    // A dev home whose genesis sends the fees to the stakers, so rewards and commission accrue.
    tmp = mkdtempSync(join(tmpdir(), 'kestrel-sq-'));
    const home = join(tmp, 'home');
    const init = await cli(['init', '--home', home, '--dev']);
    assert.equal(init.code, 0, init.stderr);
    const path = join(home, 'config', 'genesis.json');
    const doc = JSON.parse(readFileSync(path, 'utf8'));
    doc.app_state.distribution = { params: { community_tax: '0.02', distribute_fees: true } };
    writeFileSync(path, JSON.stringify(doc, null, 2));
    node = await startNode({ home });
    provider = new JsonRpcProvider(node.http, CHAIN_ID, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 });
    const [a, b] = nonCoinbaseAccounts(await provider.send('eth_coinbase', []));
    alice = new Wallet(a!.privateKey, provider);
    bob = new Wallet(b!.privateKey, provider);
    const send = async (p: Promise<{ wait(): Promise<TransactionReceipt | null> }>) => {
      const r = (await (await p).wait())!;
      assert.equal(r.status, 1);
      return r;
    };
    const staking = new Contract(STAKING, stakingAbi, alice);
    await send(
      staking.getFunction('createValidator')(
        ['alice', 'keybase', 'https://alice.example', 'sec@alice.example', 'details'],
        [parseEther('0.1'), parseEther('0.2'), parseEther('0.01')],
        1n,
        alice.address,
        pubkey.toString('base64'),
        parseEther('100'),
      ),
    );
    const asBob = staking.connect(bob) as Contract;
    await send(asBob.getFunction('delegate')(bob.address, valoper(alice.address), parseEther('50')));
    // Blocks with fees: each pays the stakers in the next block.
    for (let i = 0; i < 3; i++) await send(bob.sendTransaction({ to: alice.address, value: 1n }));
    const r = await send(asBob.getFunction('undelegate')(bob.address, valoper(alice.address), parseEther('5')));
    height = r.blockNumber;
    g = rawGrpc(node.grpc);
    comet = await Comet38Client.connect(node.comet);
  });
  after(async () => {
    g?.close();
    comet?.disconnect();
    provider?.destroy();
    await node?.dispose();
    if (tmp !== undefined) rmSync(tmp, { recursive: true, force: true });
  });

  const ethCall = async (to: string, abi: Interface, fn: string, args: unknown[]) =>
    abi.decodeFunctionResult(fn, await provider.call({ to, data: abi.encodeFunctionData(fn, args), blockTag: height }));

  it('reflection lists the staking, distribution and slashing query services beside bank', async () => {
    const services = await listServices(node.grpc);
    for (const s of [
      'cosmos.staking.v1beta1.Query',
      'cosmos.distribution.v1beta1.Query',
      'cosmos.slashing.v1beta1.Query',
    ])
      assert.ok(services.includes(s), `${s} in ${services.join(', ')}`);
    assert.ok(services.includes('cosmos.bank.v1beta1.Query'));
  });

  it('staking over gRPC and cosmjs agrees with the precompile at the same height', async () => {
    const q = QueryClient.withExtensions(comet, setupStakingExtension);
    const head = Number(await provider.send('eth_blockNumber', []));
    assert.equal(head, height, 'no block since (instant mode makes no empty blocks)');
    const [pv] = await ethCall(STAKING, stakingAbi, 'validator', [alice.address]);
    const validator = S.QueryValidatorResponse.decode(
      await g.call(
        '/cosmos.staking.v1beta1.Query/Validator',
        S.QueryValidatorRequest.encode({ validatorAddr: valoper(alice.address) }).finish(),
        height,
      ),
    ).validator;
    assert.deepEqual((await q.staking.validator(valoper(alice.address))).validator, validator, 'cosmjs = gRPC');
    assert.equal(validator.operatorAddress, valoper(alice.address));
    assert.equal(BigInt(validator.tokens), pv.tokens);
    assert.equal(BigInt(validator.delegatorShares), pv.delegatorShares);
    assert.equal(validator.status, Number(pv.status));
    assert.equal(validator.jailed, pv.jailed);
    assert.equal(BigInt(validator.commission.commissionRates.rate), pv.commission);
    assert.equal(BigInt(validator.minSelfDelegation), pv.minSelfDelegation);
    assert.deepEqual(validator.description, {
      moniker: 'alice',
      identity: 'keybase',
      website: 'https://alice.example',
      securityContact: 'sec@alice.example',
      details: 'details',
    });
    assert.equal(validator.consensusPubkey?.typeUrl, '/cosmos.crypto.ed25519.PubKey');
    assert.equal(
      Buffer.from(PubKey.decode(validator.consensusPubkey!.value).key).toString('base64'),
      pv.consensusPubkey,
    );

    const all = await q.staking.validators('BOND_STATUS_BONDED');
    assert.deepEqual(all.validators, [validator]);
    assert.deepEqual((await q.staking.validators('BOND_STATUS_UNBONDED')).validators, []);

    const [shares, balance] = await ethCall(STAKING, stakingAbi, 'delegation', [bob.address, valoper(alice.address)]);
    const d = (await q.staking.delegation(acc(bob.address), valoper(alice.address))).delegationResponse!;
    assert.equal(BigInt(d.delegation.shares), shares);
    assert.deepEqual(d.balance, { denom: balance.denom, amount: balance.amount.toString() });
    const mine = await q.staking.delegatorDelegations(acc(bob.address));
    assert.deepEqual(mine.delegationResponses, [d]);
    const toAlice = await q.staking.validatorDelegations(valoper(alice.address));
    assert.deepEqual(
      toAlice.delegationResponses.map((x) => x.delegation.delegatorAddress).sort(),
      [acc(alice.address), acc(bob.address)].sort(),
    );
    assert.deepEqual((await q.staking.delegatorValidators(acc(bob.address))).validators, [validator]);
    assert.deepEqual(
      (await q.staking.delegatorValidator(acc(bob.address), valoper(alice.address))).validator,
      validator,
    );

    const [ub] = await ethCall(STAKING, stakingAbi, 'unbondingDelegation', [bob.address, valoper(alice.address)]);
    const unbond = (await q.staking.unbondingDelegation(acc(bob.address), valoper(alice.address))).unbond;
    assert.equal(unbond.entries.length, 1);
    assert.equal(unbond.entries[0]!.balance, ub[2][0].balance.toString());
    assert.equal(unbond.entries[0]!.completionTime.seconds, ub[2][0].completionTime);
    assert.equal(unbond.entries[0]!.creationHeight, BigInt(height));
    assert.deepEqual((await q.staking.delegatorUnbondingDelegations(acc(bob.address))).unbondingResponses, [unbond]);

    const pool = (await q.staking.pool()).pool;
    assert.equal(
      pool.bondedTokens,
      BigInt(await provider.getBalance(moduleAddress('bonded_tokens_pool'), height)).toString(),
    );
    assert.equal(pool.notBondedTokens, parseEther('5').toString());
    const params = (await q.staking.params()).params;
    assert.equal(params.bondDenom, 'akestrel');
    assert.equal(params.unbondingTime.seconds, 21n * 86400n);
  });

  it('distribution over gRPC and cosmjs agrees with the precompile: rewards, commission, outstanding, pool', async () => {
    const q = QueryClient.withExtensions(comet, setupDistributionExtension);
    const dec = (coins: Array<{ amount: bigint }>) => (coins.length === 0 ? 0n : coins[0]!.amount);
    const [pRewards] = await ethCall(DISTRIBUTION, distributionAbi, 'delegationRewards', [
      bob.address,
      valoper(alice.address),
    ]);
    const grpcRewards = D.QueryDelegationRewardsResponse.decode(
      await g.call(
        '/cosmos.distribution.v1beta1.Query/DelegationRewards',
        D.QueryDelegationRewardsRequest.encode({
          delegatorAddress: acc(bob.address),
          validatorAddress: valoper(alice.address),
        }).finish(),
        height,
      ),
    );
    const viaCosmjs = await q.distribution.delegationRewards(acc(bob.address), valoper(alice.address));
    assert.deepEqual(viaCosmjs, grpcRewards);
    const selfRewards = await ethCall(DISTRIBUTION, distributionAbi, 'delegationRewards', [
      alice.address,
      valoper(alice.address),
    ]);
    assert.ok(dec(selfRewards[0]) > 0n, 'fees reached the stakers');
    assert.deepEqual(
      grpcRewards.rewards.map((c) => [c.denom, BigInt(c.amount)]),
      dec(pRewards) === 0n ? [] : [['akestrel', dec(pRewards)]],
    );
    const total = await q.distribution.delegationTotalRewards(acc(alice.address));
    const [pRows, pTotal] = await ethCall(DISTRIBUTION, distributionAbi, 'delegationTotalRewards', [alice.address]);
    assert.equal(BigInt(total.total[0]!.amount), dec(pTotal));
    assert.deepEqual(
      total.rewards.map((r) => r.validatorAddress),
      pRows.map((r: any) => r.validatorAddress),
    );
    const commission = (await q.distribution.validatorCommission(valoper(alice.address))).commission!.commission;
    const [pCommission] = await ethCall(DISTRIBUTION, distributionAbi, 'validatorCommission', [valoper(alice.address)]);
    assert.ok(dec(pCommission) > 0n, 'commission accrued');
    assert.equal(BigInt(commission[0]!.amount), dec(pCommission));
    const outstanding = (await q.distribution.validatorOutstandingRewards(valoper(alice.address))).rewards!.rewards;
    const [pOut] = await ethCall(DISTRIBUTION, distributionAbi, 'validatorOutstandingRewards', [
      valoper(alice.address),
    ]);
    assert.equal(BigInt(outstanding[0]!.amount), dec(pOut));
    const pool = (await q.distribution.communityPool()).pool;
    const [pPool] = await ethCall(DISTRIBUTION, distributionAbi, 'communityPool', []);
    assert.equal(BigInt(pool[0]!.amount), dec(pPool));
    assert.ok(dec(pPool) > 0n, 'the community tax was taken');
    assert.deepEqual((await q.distribution.delegatorValidators(acc(bob.address))).validators, [valoper(alice.address)]);
    assert.equal((await q.distribution.delegatorWithdrawAddress(acc(bob.address))).withdrawAddress, acc(bob.address));
    assert.equal((await q.distribution.params()).params.communityTax, (2n * 10n ** 16n).toString());
    assert.deepEqual((await q.distribution.validatorSlashes(valoper(alice.address), 0, height)).slashes, []);
  });

  it('slashing over gRPC and cosmjs agrees with the precompile', async () => {
    const q = QueryClient.withExtensions(comet, setupSlashingExtension);
    const info = (await q.slashing.signingInfo(valcons)).valSigningInfo;
    const [p] = await ethCall(SLASHING, slashingAbi, 'getSigningInfo', ['0x' + consAddr.toString('hex')]);
    assert.equal(info.address, valcons);
    assert.equal(info.startHeight, p.startHeight);
    assert.equal(info.indexOffset, p.indexOffset);
    assert.equal(info.missedBlocksCounter, p.missedBlocksCounter);
    assert.equal(info.tombstoned, p.tombstoned);
    assert.equal(info.jailedUntil.seconds, p.jailedUntil);
    const grpcInfos = SL.QuerySigningInfosResponse.decode(
      await g.call(
        '/cosmos.slashing.v1beta1.Query/SigningInfos',
        SL.QuerySigningInfosRequest.encode({}).finish(),
        height,
      ),
    );
    assert.deepEqual((await q.slashing.signingInfos()).info, grpcInfos.info);
    assert.deepEqual(grpcInfos.info, [info]);
    const params = (await q.slashing.params()).params;
    assert.equal(params.signedBlocksWindow, 100n);
    assert.equal(new TextDecoder().decode(params.slashFractionDowntime), (10n ** 16n).toString());
  });

  it('answers at an earlier height as the chain was then', async () => {
    const before = S.QueryDelegationResponse.decode(
      await g.call(
        '/cosmos.staking.v1beta1.Query/Delegation',
        S.QueryDelegationRequest.encode({
          delegatorAddr: acc(bob.address),
          validatorAddr: valoper(alice.address),
        }).finish(),
        height - 1,
      ),
    );
    assert.equal(before.delegationResponse!.balance.amount, parseEther('50').toString());
    const [, balance] = await ethCall(STAKING, stakingAbi, 'delegation', [bob.address, valoper(alice.address)]);
    assert.equal(balance.amount, parseEther('45'));
  });

  const grpcCase = (name: string, path: string, req: Uint8Array, code: grpc.status, details: RegExp) =>
    it(`gRPC ${name}: ${grpc.status[code]}`, async () => {
      await assert.rejects(g.call(path, req), (e: grpc.ServiceError) => {
        assert.equal(e.code, code, e.details);
        assert.match(e.details, details);
        return true;
      });
    });
  const unknownVal = valoper('0x' + '42'.repeat(20));
  grpcCase(
    'unknown validator',
    '/cosmos.staking.v1beta1.Query/Validator',
    S.QueryValidatorRequest.encode({ validatorAddr: unknownVal }).finish(),
    grpc.status.NOT_FOUND,
    new RegExp(`^validator ${unknownVal} not found$`),
  );
  grpcCase(
    'an account address where a validator is expected',
    '/cosmos.staking.v1beta1.Query/Validator',
    S.QueryValidatorRequest.encode({ validatorAddr: acc('0x' + '42'.repeat(20)) }).finish(),
    grpc.status.INVALID_ARGUMENT,
    /^invalid Bech32 prefix; expected kestrelvaloper, got kestrel$/,
  );
  grpcCase(
    'empty validator address',
    '/cosmos.staking.v1beta1.Query/Validator',
    new Uint8Array(),
    grpc.status.INVALID_ARGUMENT,
    /^validator address cannot be empty$/,
  );
  grpcCase(
    'invalid status',
    '/cosmos.staking.v1beta1.Query/Validators',
    S.QueryValidatorsRequest.encode({ status: 'bonded' }).finish(),
    grpc.status.INVALID_ARGUMENT,
    /^invalid validator status bonded$/,
  );
  grpcCase(
    'rewards of a validator that does not exist',
    '/cosmos.distribution.v1beta1.Query/DelegationRewards',
    D.QueryDelegationRewardsRequest.encode({
      delegatorAddress: acc('0x' + '42'.repeat(20)),
      validatorAddress: unknownVal,
    }).finish(),
    grpc.status.NOT_FOUND,
    /validator does not exist/,
  );
  grpcCase(
    'a malformed consensus address',
    '/cosmos.slashing.v1beta1.Query/SigningInfo',
    SL.QuerySigningInfoRequest.encode({ consAddress: 'kestrelvalcons1nope' }).finish(),
    grpc.status.INVALID_ARGUMENT,
    /^decoding bech32 failed/,
  );

  it('cosmjs gets the SDK error of a missing delegation through abci_query', async () => {
    const q = QueryClient.withExtensions(comet, setupStakingExtension);
    await assert.rejects(
      q.staking.delegation(acc('0x' + '42'.repeat(20)), valoper(alice.address)),
      /rpc error: code = NotFound desc = delegation with delegator kestrel1\w+ not found for validator kestrelvaloper1\w+: key not found/,
    );
  });
});
