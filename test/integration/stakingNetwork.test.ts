// Proof of stake on a real network: four Kestrel validators behind CometBFT whose genesis set is the staking
// module's. The set follows stake (CometBFT's /validators two heights after the block that changed it), undelegated
// tokens come back after the unbonding time and not before, a fifth node syncs and joins with createValidator,
// signs blocks, and is jailed and slashed for downtime, refused unjail before its jail time, and unjailed after.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { Interface } from 'ethers';
import { QueryTotalSupplyResponse } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { cometbftMissing, cometRpc, CometNet, freePortBlock, type CometNode } from '../helpers/cometbft.ts';
import { rpc, rpcResult, sleep, waitFor } from '../helpers/node.ts';
import { sendTx } from '../helpers/tx.ts';

const STAKING = '0x0000000000000000000000000000000000000800';
const SLASHING = '0x0000000000000000000000000000000000000806';
const COIN = 10n ** 18n;
const UNBONDING_S = 8;
const WINDOW = 20;
const JAIL_S = 10;
const stakingAbi = new Interface([
  'function createValidator(tuple(string,string,string,string,string) description, tuple(uint256,uint256,uint256) rates, uint256 minSelfDelegation, address validatorAddress, string pubkey, uint256 value) returns (bool)',
  'function delegate(address delegatorAddress, string validatorAddress, uint256 amount) returns (bool)',
  'function undelegate(address delegatorAddress, string validatorAddress, uint256 amount) returns (int64)',
  'function validator(address validatorAddress) view returns (tuple(string,string,bool,uint8,uint256,uint256,tuple(string,string,string,string,string),int64,int64,uint256,uint256))',
]);
const slashingAbi = new Interface(['function unjail(address validatorAddress) returns (bool)']);
const DISTRIBUTION = '0x0000000000000000000000000000000000000801';
const distributionAbi = new Interface([
  'function withdrawDelegatorRewards(address delegatorAddress, string validatorAddress) returns (tuple(string,uint256)[])',
  'function withdrawValidatorCommission(string validatorAddress) returns (tuple(string,uint256)[])',
  'event WithdrawDelegatorReward(address indexed delegatorAddress, address indexed validatorAddress, uint256 amount)',
  'event WithdrawValidatorCommission(string indexed validatorAddress, uint256 commission)',
]);
const bankAbi = new Interface(['function totalSupply() view returns (tuple(address,uint256)[])']);
const BANK = '0x0000000000000000000000000000000000000804';
const DEC = 10n ** 18n;
const FEE_COLLECTOR = '0xf1829676db577682e944fc3493d451b67ff3e29f';

/**
 * What block `b` allocates to the validator with `key`, recomputed: the fee collector's balance after block b-1 (its
 * fees), 2% community tax, the validator's share of the power of the set that signed block b-1 (CometBFT's set at
 * b-1), its 10% commission rounded half to even, all as LegacyDec (10^18) with the SDK's truncations.
 */
async function allocation(n: CometNode, b: number, key: string): Promise<{ shared: bigint; commission: bigint }> {
  const fees = BigInt(await rpcResult(n.eth, 'eth_getBalance', [FEE_COLLECTOR, '0x' + (b - 1).toString(16)]));
  const set = await cometValidators(n, b - 1);
  const power = BigInt(set.get(key) ?? 0);
  if (fees === 0n || power === 0n) return { shared: 0n, commission: 0n };
  const total = [...set.values()].reduce((x, p) => x + BigInt(p), 0n);
  const multiplier = (fees * DEC * (DEC - DEC / 50n)) / DEC;
  const fraction = (power * DEC * DEC) / (total * DEC);
  const reward = (multiplier * fraction) / DEC;
  const product = reward * (DEC / 10n);
  let commission = product / DEC;
  const rest = product % DEC;
  if (rest * 2n > DEC || (rest * 2n === DEC && commission % 2n === 1n)) commission++;
  return { shared: reward - commission, commission };
}

async function totalSupply(n: CometNode): Promise<bigint> {
  const out = await rpcResult(n.eth, 'eth_call', [
    { to: BANK, data: bankAbi.encodeFunctionData('totalSupply', []) },
    'latest',
  ]);
  return bankAbi.decodeFunctionResult('totalSupply', out)[0][0][1];
}

/** CometBFT's validator set at a height: ed25519 key (base64) → power. */
async function cometValidators(n: CometNode, height?: number): Promise<Map<string, number>> {
  const res = await cometRpc(
    n.rpc,
    'validators',
    height === undefined ? { per_page: '100' } : { height: String(height), per_page: '100' },
  );
  return new Map(res.validators.map((v: any) => [v.pub_key.value as string, Number(v.voting_power)]));
}

function pubkeyOf(net: CometNet, n: { spec: { cometHome: string } }): string {
  const key = JSON.parse(readFileSync(join(net.dir, n.spec.cometHome, 'config', 'priv_validator_key.json'), 'utf8'));
  return key.pub_key.value as string;
}

async function validator(n: CometNode, operator: string): Promise<{ jailed: boolean; status: bigint; tokens: bigint }> {
  const out = await rpcResult(n.eth, 'eth_call', [
    { to: STAKING, data: stakingAbi.encodeFunctionData('validator', [operator]) },
    'latest',
  ]);
  const [v] = stakingAbi.decodeFunctionResult('validator', out);
  return { jailed: v[2], status: v[3], tokens: v[4] };
}

/** Sends a precompile call and returns its receipt (status checked by the caller). */
async function call(n: CometNode, key: string, to: string, data: string): Promise<any> {
  return (await sendTx(n.eth, key, { to, data, gas: 400_000n })).receipt;
}

describe('proof of stake on a CometBFT network', { skip: cometbftMissing(), timeout: 600_000 }, () => {
  let net: CometNet | undefined;
  let joiner: CometNode | undefined;
  const nodes = () => net!.nodes;
  const delegator = DEV_ACCOUNTS[6]!;
  const operator5 = DEV_ACCOUNTS[7]!;

  before(async () => {
    const params = {
      staking: { params: { unbonding_time: `${UNBONDING_S}s` } },
      slashing: {
        params: {
          signed_blocks_window: String(WINDOW),
          min_signed_per_window: '0.5',
          downtime_jail_duration: `${JAIL_S}s`,
          slash_fraction_downtime: '0.01',
        },
      },
    };
    net = CometNet.create({
      validators: 4,
      basePort: await freePortBlock(5),
      args: ['--power', '10', '--genesis-params', JSON.stringify(params)],
    });
    await net.startAll();
    await Promise.all(nodes().map((n) => n.waitHeight(2, 120_000)));
  });
  afterEach((t) => {
    if ((t as { passed?: boolean }).passed === false) {
      net?.printLogs(`failed: ${(t as { name?: string }).name}`);
      if (joiner) process.stderr.write(joiner.logs() + '\n');
    }
  });
  after(async () => {
    await joiner?.kill();
    await net?.dispose();
  });

  it('the genesis set is the staking module’s: four bonded validators of power 10', async () => {
    const set = await cometValidators(nodes()[0]!);
    assert.equal(set.size, 4);
    for (const n of nodes()) assert.equal(set.get(pubkeyOf(net!, n)), 10, n.name);
  });

  it('a delegation raises the validator’s power two heights later; undelegating lowers it; tokens return after the unbonding time', async () => {
    const n0 = nodes()[0]!;
    const target = nodes()[1]!;
    const op = JSON.parse(await readOperator(net!, target));
    const key = pubkeyOf(net!, target);
    const r = await call(
      n0,
      delegator.privateKey,
      STAKING,
      stakingAbi.encodeFunctionData('delegate', [delegator.address, op, 5n * COIN]),
    );
    assert.equal(r.status, '0x1');
    const h = Number(r.blockNumber);
    await n0.waitHeight(h + 3, 60_000);
    assert.equal((await cometValidators(n0, h + 1)).get(key), 10, 'not yet at h+1');
    assert.equal((await cometValidators(n0, h + 2)).get(key), 15, 'CometBFT applies the update at h+2');
    console.log(`/validators: node1 power 10 at height ${h + 1}, 15 at ${h + 2} (delegation in block ${h})`);
    // Every validator answers the same staking query at the same height.
    const q = { to: STAKING, data: stakingAbi.encodeFunctionData('validator', [op]) };
    const answers = await Promise.all(
      nodes().map((n) => rpcResult(n.eth, 'eth_call', [q, '0x' + (h + 2).toString(16)])),
    );
    for (const x of answers) assert.equal(x, answers[0]);

    const before = BigInt(await rpcResult(n0.eth, 'eth_getBalance', [delegator.address, 'latest']));
    const u = await call(
      n0,
      delegator.privateKey,
      STAKING,
      stakingAbi.encodeFunctionData('undelegate', [delegator.address, op, 5n * COIN]),
    );
    assert.equal(u.status, '0x1');
    const fee = BigInt(u.gasUsed) * BigInt(u.effectiveGasPrice);
    const hu = Number(u.blockNumber);
    await n0.waitHeight(hu + 3, 60_000);
    assert.equal((await cometValidators(n0, hu + 2)).get(key), 10);
    // Undelegating pays the delegation's rewards so far (the fees distributed while it was staked).
    const afterUndelegate = BigInt(await rpcResult(n0.eth, 'eth_getBalance', [delegator.address, u.blockNumber]));
    const rewards = afterUndelegate - (before - fee);
    assert.ok(rewards > 0n, `rewards paid on undelegate: ${rewards}`);
    assert.equal(
      BigInt(await rpcResult(n0.eth, 'eth_getBalance', [delegator.address, 'latest'])),
      afterUndelegate,
      'not before the unbonding time',
    );
    await waitFor(
      'unbonded tokens back',
      async () =>
        BigInt(await rpcResult(n0.eth, 'eth_getBalance', [delegator.address, 'latest'])) === afterUndelegate + 5n * COIN
          ? true
          : undefined,
      60_000,
    );
    // The block that paid it back is the first whose BFT time reached the undelegation's time + the unbonding time.
    const timeOf = async (n: number) =>
      Number((await rpcResult(n0.eth, 'eth_getBlockByNumber', ['0x' + n.toString(16), false])).timestamp);
    const balanceAt = async (n: number) =>
      BigInt(await rpcResult(n0.eth, 'eth_getBalance', [delegator.address, '0x' + n.toString(16)]));
    let paidIn = Number(await rpcResult(n0.eth, 'eth_blockNumber', []));
    while ((await balanceAt(paidIn - 1)) !== afterUndelegate) paidIn--;
    const due = (await timeOf(hu)) + UNBONDING_S;
    assert.ok((await timeOf(paidIn)) >= due, 'not paid before the unbonding time');
    assert.ok((await timeOf(paidIn - 1)) < due, 'paid in the first block at or after it');
    console.log(`unbonding: undelegated in block ${hu}, paid back in block ${paidIn} (${UNBONDING_S} s of BFT time)`);
  });

  it('a fifth node syncs, joins with createValidator, signs blocks; downtime jails and slashes it; unjail after the jail time', async () => {
    const n0 = nodes()[0]!;
    joiner = net!.addNode(4, { timeoutCommit: '200ms' });
    await joiner.start();
    const head = Number((await cometRpc(n0.rpc, 'status')).sync_info.latest_block_height);
    await joiner.waitCaughtUp(head, 120_000);
    const key = pubkeyOf(net!, joiner);
    const desc = ['node4', '', '', '', ''];
    const rates = [COIN / 10n, COIN / 5n, COIN / 100n];
    const data = stakingAbi.encodeFunctionData('createValidator', [desc, rates, 1n, operator5.address, key, 5n * COIN]);
    // 5 of 45: the four others keep more than two thirds of the power when it stops.
    const r = await call(joiner, operator5.privateKey, STAKING, data);
    assert.equal(r.status, '0x1');
    const h = Number(r.blockNumber);
    await n0.waitHeight(h + 3, 60_000);
    assert.equal((await cometValidators(n0, h + 2)).get(key), 5, 'in /validators at h+2');
    console.log(`/validators at ${h + 2}: ${JSON.stringify([...(await cometValidators(n0, h + 2)).values()])}`);
    // It signs: its address appears in a later commit.
    const address = (await cometRpc(joiner.rpc, 'status')).validator_info.address as string;
    await waitFor(
      'node4 signs a block',
      async () => {
        const b = await cometRpc(n0.rpc, 'block', {});
        return b.block.last_commit.signatures.some((s: any) => s.validator_address === address) ? true : undefined;
      },
      60_000,
    );

    // Rewards: a delegator joins node4; blocks with fees pass; the withdrawn reward and commission equal the F1
    // arithmetic recomputed here from CometBFT's validator sets and each block's fees.
    const d = await call(
      n0,
      delegator.privateKey,
      STAKING,
      stakingAbi.encodeFunctionData('delegate', [delegator.address, operator5.address, 5n * COIN]),
    );
    assert.equal(d.status, '0x1');
    for (let i = 0; i < 4; i++)
      await sendTx(n0.eth, DEV_ACCOUNTS[9]!.privateKey, { to: DEV_ACCOUNTS[8]!.address, value: 1n });
    const w = await call(
      n0,
      delegator.privateKey,
      DISTRIBUTION,
      distributionAbi.encodeFunctionData('withdrawDelegatorRewards', [delegator.address, operator5.address]),
    );
    assert.equal(w.status, '0x1');
    const c = await call(
      n0,
      operator5.privateKey,
      DISTRIBUTION,
      distributionAbi.encodeFunctionData('withdrawValidatorCommission', [operator5.address]),
    );
    assert.equal(c.status, '0x1');
    const paid = async (receipt: any) =>
      BigInt(
        distributionAbi.parseLog(receipt.logs.find((l: any) => l.address.toLowerCase() === DISTRIBUTION))!.args.at(-1),
      );
    let shared = 0n;
    for (let b = Number(d.blockNumber) + 1; b <= Number(w.blockNumber); b++)
      shared += (await allocation(n0, b, key)).shared;
    let commission = 0n;
    for (let b = h + 1; b <= Number(c.blockNumber); b++) commission += (await allocation(n0, b, key)).commission;
    // One period from the delegation to the withdrawal: the ratio per token (truncated) times the 5 coins staked.
    const ratio = shared / (10n * COIN);
    const expectedReward = (ratio * 5n * COIN * DEC) / DEC / DEC;
    assert.equal(await paid(w), expectedReward);
    assert.equal(await paid(c), commission / DEC);
    console.log(`rewards: delegator ${expectedReward} wei (F1, recomputed), commission ${commission / DEC} wei`);
    const supplyBefore = await totalSupply(n0);

    // Downtime: stopped past the window, it is jailed, slashed 1% and leaves the set.
    await joiner.kill();
    const v = await waitFor(
      'node4 jailed',
      async () => {
        const x = await validator(n0, operator5.address);
        return x.jailed ? x : undefined;
      },
      120_000,
    );
    assert.equal(v.tokens, 10n * COIN - (10n * COIN) / 100n);
    assert.equal(await totalSupply(n0), supplyBefore - (10n * COIN) / 100n, 'the slash is burned from the supply');
    // The bank module's TotalSupply (abci_query, as cosmjs and gRPC read it) agrees with the precompile.
    const q = await cometRpc(n0.rpc, 'abci_query', { path: '/cosmos.bank.v1beta1.Query/TotalSupply', data: '' });
    assert.equal(q.response.code, 0, q.response.log);
    const bankSupply = QueryTotalSupplyResponse.decode(Buffer.from(q.response.value, 'base64')).supply;
    assert.equal(BigInt(bankSupply.find((c) => c.denom === 'akestrel')!.amount), await totalSupply(n0));
    const hj = Number(await rpcResult(n0.eth, 'eth_blockNumber', []));
    await n0.waitHeight(hj + 3, 60_000);
    assert.equal((await cometValidators(n0)).has(key), false, 'left the set');
    console.log(`downtime: node4 tokens ${v.tokens} (1% of 10 coins slashed), not in /validators`);

    // Unjail before the jail time: refused with the module's reason.
    const unjail = slashingAbi.encodeFunctionData('unjail', [operator5.address]);
    const early = await rpc(n0.eth, 'eth_call', [{ from: operator5.address, to: SLASHING, data: unjail }, 'latest']);
    assert.match(JSON.stringify(early), /still jailed/);
    await sleep(JAIL_S * 1000 + 1000);
    const ok = await call(n0, operator5.privateKey, SLASHING, unjail);
    assert.equal(ok.status, '0x1');
    const hu = Number(ok.blockNumber);
    await n0.waitHeight(hu + 3, 60_000);
    assert.equal((await cometValidators(n0, hu + 2)).get(key), 9, 'back in the set with its slashed power');
  });
});

/** The operator address of a genesis validator node (its Kestrel validator account), from the Kestrel genesis. */
async function readOperator(net: CometNet, n: CometNode): Promise<string> {
  const genesis = JSON.parse(readFileSync(join(net.dir, n.spec.appHome, 'config', 'genesis.json'), 'utf8'));
  const key = pubkeyOf(net, n);
  const v = genesis.app_state.staking.validators.find((x: any) => x.consensus_pubkey === key);
  return JSON.stringify(v.operator_address);
}
