// Proof of stake on a real network: four Kestrel validators behind CometBFT whose genesis set is the staking
// module's. The set follows stake (CometBFT's /validators two heights after the block that changed it), undelegated
// tokens come back after the unbonding time and not before, a fifth node syncs and joins with createValidator,
// signs blocks, and is jailed and slashed for downtime, refused unjail before its jail time, and unjailed after.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { Interface } from 'ethers';
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
    const unbondedAt = Date.now();
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
    assert.ok(Date.now() - unbondedAt >= (UNBONDING_S - 2) * 1000, 'paid back only after the unbonding time');
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
    assert.equal(v.tokens, 5n * COIN - (5n * COIN) / 100n);
    const hj = Number(await rpcResult(n0.eth, 'eth_blockNumber', []));
    await n0.waitHeight(hj + 3, 60_000);
    assert.equal((await cometValidators(n0)).has(key), false, 'left the set');
    console.log(`downtime: node4 tokens ${v.tokens} (1% of 5 coins slashed), not in /validators`);

    // Unjail before the jail time: refused with the module's reason.
    const unjail = slashingAbi.encodeFunctionData('unjail', [operator5.address]);
    const early = await rpc(n0.eth, 'eth_call', [{ from: operator5.address, to: SLASHING, data: unjail }, 'latest']);
    assert.match(JSON.stringify(early), /still jailed/);
    await sleep(JAIL_S * 1000 + 1000);
    const ok = await call(n0, operator5.privateKey, SLASHING, unjail);
    assert.equal(ok.status, '0x1');
    const hu = Number(ok.blockNumber);
    await n0.waitHeight(hu + 3, 60_000);
    assert.equal((await cometValidators(n0, hu + 2)).get(key), 4, 'back in the set with its slashed power');
  });
});

/** The operator address of a genesis validator node (its Kestrel validator account), from the Kestrel genesis. */
async function readOperator(net: CometNet, n: CometNode): Promise<string> {
  const genesis = JSON.parse(readFileSync(join(net.dir, n.spec.appHome, 'config', 'genesis.json'), 'utf8'));
  const key = pubkeyOf(net, n);
  const v = genesis.app_state.staking.validators.find((x: any) => x.consensus_pubkey === key);
  return JSON.stringify(v.operator_address);
}
