// `kestreld tx staking|slashing|distribution` and `kestreld query staking|distribution|slashing` as an operator
// runs them against a dev node whose fees go to the stakers: validators created from CometBFT's key file and from
// --pubkey, delegations, unbonding, redelegation and withdrawals signed with key-store accounts; the queries print
// the SDK CLI's shapes and agree with the precompiles' views at the same height; every bad input is one clear
// stderr line and exit code 1.
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { bech32 } from 'bech32';
import { JsonRpcProvider } from 'ethers';
import { CHAIN_ID, DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { cli } from '../helpers/cosmos.ts';
import { type KestrelNode, printLogsOnFailure, startNode } from '../helpers/node.ts';
import { DISTRIBUTION, distributionAbi, STAKING, stakingAbi } from '../helpers/precompileAbi.ts';
import { sendTx } from '../helpers/tx.ts';

const hexBytes = (h: string) => Buffer.from(h.slice(2), 'hex');
const acc = (h: string) => bech32.encode('kestrel', bech32.toWords(hexBytes(h)));
const valoper = (h: string) => bech32.encode('kestrelvaloper', bech32.toWords(hexBytes(h)));
const E18 = 10n ** 18n;
// LegacyDec's String(): the scaled integer with 18 decimals.
const decString = (scaled: bigint) => {
  const s = scaled.toString().padStart(19, '0');
  return `${s.slice(0, -18)}.${s.slice(-18)}`;
};
const [alice, bob, carol] = [DEV_ACCOUNTS[3]!, DEV_ACCOUNTS[4]!, DEV_ACCOUNTS[5]!];

describe('kestreld tx / query staking, distribution, slashing', { timeout: 180_000 }, () => {
  let node: KestrelNode;
  let tmp: string;
  let cometHome: string;
  let provider: JsonRpcProvider;
  let tcp: string;
  let height: number;
  let alicePubkey: string;
  const carolPubkey = randomBytes(32).toString('base64');

  const tx = (args: string[], from: string) =>
    cli(['tx', ...args, '--from', from, '--home', node.home, '--json-rpc', node.http, '-o', 'json']);
  const q = (args: string[]) => cli(['q', ...args, '--node', tcp, '--height', String(height), '-o', 'json']);
  const ok = async (p: ReturnType<typeof cli>) => {
    const r = await p;
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout.trim().split('\n').at(-1)!);
  };
  const view = async (to: typeof STAKING | typeof DISTRIBUTION, fn: string, args: unknown[]) => {
    const abi = to === STAKING ? stakingAbi : distributionAbi;
    return abi.decodeFunctionResult(
      fn,
      await provider.call({ to, data: abi.encodeFunctionData(fn, args), blockTag: height }),
    );
  };

  afterEach(printLogsOnFailure(() => node));
  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'kestrel-scli-'));
    const home = join(tmp, 'home');
    const init = await cli(['init', '--home', home, '--dev']);
    assert.equal(init.code, 0, init.stderr);
    const gpath = join(home, 'config', 'genesis.json');
    const doc = JSON.parse(readFileSync(gpath, 'utf8'));
    doc.app_state.distribution = { params: { distribute_fees: true } };
    writeFileSync(gpath, JSON.stringify(doc, null, 2));
    // A CometBFT home with its ed25519 validator key, as `cometbft init` writes it.
    const { publicKey } = generateKeyPairSync('ed25519');
    alicePubkey = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('base64');
    cometHome = join(tmp, 'cometbft');
    mkdirSync(join(cometHome, 'config'), { recursive: true });
    writeFileSync(
      join(cometHome, 'config', 'priv_validator_key.json'),
      JSON.stringify({
        address: createHash('sha256')
          .update(Buffer.from(alicePubkey, 'base64'))
          .digest()
          .subarray(0, 20)
          .toString('hex')
          .toUpperCase(),
        pub_key: { type: 'tendermint/PubKeyEd25519', value: alicePubkey },
        priv_key: { type: 'tendermint/PrivKeyEd25519', value: 'unused-here' },
      }),
    );
    node = await startNode({ home });
    tcp = node.comet.replace('http://', 'tcp://');
    provider = new JsonRpcProvider(node.http, CHAIN_ID, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 });
  });
  after(async () => {
    provider?.destroy();
    await node?.dispose();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('create-validator (key from CometBFT, or --pubkey), delegate, unbond, redelegate, withdraw-rewards', async () => {
    const created = await ok(
      tx(
        [
          'staking',
          'create-validator',
          '--amount',
          `${100n * E18}akestrel`,
          '--moniker',
          'alice',
          '--website',
          'https://alice.example',
          '--cometbft-home',
          cometHome,
        ],
        alice.address,
      ),
    );
    assert.equal(created.code, 0);
    assert.match(created.txhash, /^0x[0-9a-f]{64}$/);
    const receipt = await provider.getTransactionReceipt(created.txhash);
    assert.equal(receipt?.status, 1);
    assert.equal(receipt?.to, STAKING);
    assert.equal(String(receipt?.gasUsed), created.gas_used);
    // The default text output: the TxResponse as YAML.
    const carolTx = await cli([
      'tx',
      'staking',
      'create-validator',
      '--amount',
      `${10n * E18}`,
      '--moniker',
      'carol',
      '--commission-rate',
      '0.05',
      '--pubkey',
      JSON.stringify({ '@type': '/cosmos.crypto.ed25519.PubKey', key: carolPubkey }),
      '--from',
      carol.address,
      '--home',
      node.home,
      '--json-rpc',
      node.http,
    ]);
    assert.equal(carolTx.code, 0, carolTx.stderr);
    assert.match(
      carolTx.stdout,
      /^code: 0\ngas_used: "\d+"\ngas_wanted: "\d+"\nheight: "\d+"\nraw_log: ""\ntxhash: 0x[0-9a-f]{64}\n$/,
    );
    await ok(tx(['staking', 'delegate', valoper(alice.address), `${50n * E18}akestrel`], acc(bob.address)));
    // Blocks with fees, which go to the stakers in the next block.
    for (let i = 0; i < 3; i++)
      await sendTx(node.http, DEV_ACCOUNTS[6]!.privateKey, { to: DEV_ACCOUNTS[7]!.address, value: 1n });
    await ok(tx(['staking', 'unbond', alice.address, `${5n * E18}akestrel`], bob.address));
    await ok(
      tx(['staking', 'redelegate', valoper(alice.address), valoper(carol.address), `${2n * E18}akestrel`], bob.address),
    );
    const before = await provider.getBalance(alice.address);
    const out = await cli([
      'tx',
      'distribution',
      'withdraw-rewards',
      valoper(alice.address),
      '--commission',
      '--from',
      alice.address,
      '--home',
      node.home,
      '--json-rpc',
      node.http,
      '-o',
      'json',
    ]);
    assert.equal(out.code, 0, out.stderr);
    const [rewards, commission] = out.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(rewards.code, 0);
    assert.equal(commission.code, 0);
    const fees = async (h: string) => {
      const r = (await provider.getTransactionReceipt(h))!;
      return r.gasUsed * r.gasPrice;
    };
    const gained =
      (await provider.getBalance(alice.address)) -
      before +
      (await fees(rewards.txhash)) +
      (await fees(commission.txhash));
    assert.ok(gained > 0n, `alice withdrew rewards and commission (${gained})`);
    height = Number(commission.height);
  });

  it('query staking prints the SDK shapes, agreeing with the precompile at the same height', async () => {
    const [pv] = await view(STAKING, 'validator', [alice.address]);
    const v = await ok(q(['staking', 'validator', valoper(alice.address)]));
    assert.deepEqual(v, {
      operator_address: valoper(alice.address),
      consensus_pubkey: { '@type': '/cosmos.crypto.ed25519.PubKey', key: alicePubkey },
      jailed: false,
      status: 'BOND_STATUS_BONDED',
      tokens: pv.tokens.toString(),
      delegator_shares: decString(pv.delegatorShares),
      description: {
        moniker: 'alice',
        identity: '',
        website: 'https://alice.example',
        security_contact: '',
        details: '',
      },
      unbonding_height: '0',
      unbonding_time: '1970-01-01T00:00:00Z',
      commission: {
        commission_rates: {
          rate: '0.100000000000000000',
          max_rate: '0.200000000000000000',
          max_change_rate: '0.010000000000000000',
        },
        update_time: v.commission.update_time,
      },
      min_self_delegation: '1',
      unbonding_on_hold_ref_count: '0',
      unbonding_ids: [],
    });
    assert.match(v.commission.update_time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(pv.tokens, 143n * E18, '100 + 50 - 5 - 2');
    const all = await ok(q(['staking', 'validators', '--count-total']));
    assert.deepEqual(all.validators.map((x: any) => x.description.moniker).sort(), ['alice', 'carol']);
    assert.deepEqual(all.pagination, { next_key: null, total: '2' });
    const page = await ok(q(['staking', 'validators', '--limit', '1']));
    assert.equal(page.validators.length, 1);
    assert.notEqual(page.pagination.next_key, null);
    const next = await ok(q(['staking', 'validators', '--limit', '1', '--page-key', page.pagination.next_key]));
    assert.notEqual(next.validators[0].operator_address, page.validators[0].operator_address);
    const [shares, balance] = await view(STAKING, 'delegation', [bob.address, valoper(alice.address)]);
    const d = await ok(q(['staking', 'delegation', bob.address, valoper(alice.address)]));
    assert.deepEqual(d, {
      delegation: {
        delegator_address: acc(bob.address),
        validator_address: valoper(alice.address),
        shares: decString(shares),
      },
      balance: { denom: 'akestrel', amount: balance.amount.toString() },
    });
    const ds = await ok(q(['staking', 'delegations', acc(bob.address)]));
    assert.equal(ds.delegation_responses.length, 2, 'alice and, by redelegation, carol');
    const ub = await ok(q(['staking', 'unbonding-delegation', acc(bob.address), valoper(alice.address)]));
    assert.equal(ub.entries.length, 1);
    assert.equal(ub.entries[0].balance, (5n * E18).toString());
    assert.match(ub.entries[0].completion_time, /Z$/);
    const pool = await ok(q(['staking', 'pool']));
    assert.deepEqual(pool, { not_bonded_tokens: (5n * E18).toString(), bonded_tokens: (155n * E18).toString() });
    assert.deepEqual(await ok(q(['staking', 'params'])), {
      unbonding_time: '1814400s',
      max_validators: 100,
      max_entries: 7,
      historical_entries: 0,
      bond_denom: 'akestrel',
      min_commission_rate: '0.000000000000000000',
    });
    const text = await cli(['q', 'staking', 'pool', '--node', tcp, '--height', String(height)]);
    assert.equal(text.stdout, `bonded_tokens: "${155n * E18}"\nnot_bonded_tokens: "${5n * E18}"\n`);
  });

  it('query distribution and slashing agree with the precompiles', async () => {
    const [pr] = await view(DISTRIBUTION, 'delegationRewards', [bob.address, valoper(alice.address)]);
    const r = await ok(q(['distribution', 'rewards', bob.address, valoper(alice.address)]));
    assert.deepEqual(r, { rewards: pr.map((c: any) => ({ denom: c.denom, amount: decString(c.amount) })) });
    const total = await ok(q(['distribution', 'rewards', acc(bob.address)]));
    assert.deepEqual(
      total.rewards.map((x: any) => x.validator_address).sort(),
      [valoper(alice.address), valoper(carol.address)].sort(),
    );
    const [pc] = await view(DISTRIBUTION, 'validatorCommission', [valoper(alice.address)]);
    const c = await ok(q(['distribution', 'commission', valoper(alice.address)]));
    assert.deepEqual(c, { commission: pc.map((x: any) => ({ denom: x.denom, amount: decString(x.amount) })) });
    const [pp] = await view(DISTRIBUTION, 'communityPool', []);
    const pool = await ok(q(['distribution', 'community-pool']));
    assert.deepEqual(pool, { pool: pp.map((x: any) => ({ denom: x.denom, amount: decString(x.amount) })) });
    assert.ok(pool.pool.length === 1, 'the community tax was taken');
    assert.deepEqual(await ok(q(['distribution', 'params'])), {
      community_tax: '0.020000000000000000',
      base_proposer_reward: '0.000000000000000000',
      bonus_proposer_reward: '0.000000000000000000',
      withdraw_addr_enabled: true,
    });
    const info = await ok(
      q(['slashing', 'signing-info', JSON.stringify({ '@type': '/cosmos.crypto.ed25519.PubKey', key: alicePubkey })]),
    );
    assert.match(info.address, /^kestrelvalcons1/);
    assert.equal(info.tombstoned, false);
    assert.equal(info.jailed_until, '1970-01-01T00:00:00Z');
    assert.deepEqual(await ok(q(['slashing', 'signing-info', info.address])), info);
    const infos = await ok(q(['slashing', 'signing-infos']));
    assert.equal(infos.info.length, 2);
    assert.deepEqual(await ok(q(['slashing', 'params'])), {
      signed_blocks_window: '100',
      min_signed_per_window: '0.500000000000000000',
      downtime_jail_duration: '600s',
      slash_fraction_double_sign: '0.050000000000000000',
      slash_fraction_downtime: '0.010000000000000000',
    });
  });

  const failures: Array<[string, () => string[], RegExp]> = [
    [
      'an account address where a validator is expected',
      () => ['q', 'staking', 'validator', acc(alice.address), '--node', tcp],
      /^Error: invalid Bech32 prefix; expected kestrelvaloper, got kestrel\n$/,
    ],
    [
      'an unknown validator',
      () => ['q', 'staking', 'validator', valoper('0x' + '42'.repeat(20)), '--node', tcp],
      /^Error: rpc error: code = NotFound desc = validator kestrelvaloper1\w+ not found: key not found\n$/,
    ],
    [
      'a missing delegation',
      () => ['q', 'staking', 'delegation', carol.address, valoper(alice.address), '--node', tcp],
      /^Error: rpc error: code = NotFound desc = delegation with delegator kestrel1\w+ not found for validator kestrelvaloper1\w+: key not found\n$/,
    ],
    [
      'a delegation to an unknown validator (the precompile’s revert reason)',
      () => [
        'tx',
        'staking',
        'delegate',
        valoper('0x' + '42'.repeat(20)),
        '1akestrel',
        '--from',
        bob.address,
        '--home',
        node.home,
        '--json-rpc',
        node.http,
      ],
      /^Error: execution reverted: validator does not exist\n$/,
    ],
    [
      'unbonding more than the delegation',
      () => [
        'tx',
        'staking',
        'unbond',
        valoper(alice.address),
        `${1000n * E18}`,
        '--from',
        bob.address,
        '--home',
        node.home,
        '--json-rpc',
        node.http,
      ],
      /^Error: execution reverted: invalid shares amount\n$/,
    ],
    [
      'another denom',
      () => [
        'tx',
        'staking',
        'delegate',
        valoper(alice.address),
        '5stake',
        '--from',
        bob.address,
        '--home',
        node.home,
        '--json-rpc',
        node.http,
      ],
      /^Error: invalid denom stake: the bond denom is akestrel\n$/,
    ],
    [
      'a second validator for the same operator',
      () => [
        'tx',
        'staking',
        'create-validator',
        '--amount',
        '1',
        '--moniker',
        'again',
        '--pubkey',
        randomBytes(32).toString('base64'),
        '--from',
        alice.address,
        '--home',
        node.home,
        '--json-rpc',
        node.http,
      ],
      /^Error: execution reverted: validator already exist for this operator address; must use new validator operator address\n$/,
    ],
    [
      "Kestrel's own account key where the consensus key is expected",
      () => [
        'tx',
        'staking',
        'create-validator',
        '--amount',
        '1',
        '--moniker',
        'dave',
        '--from',
        DEV_ACCOUNTS[8]!.address,
        '--home',
        node.home,
        '--json-rpc',
        node.http,
      ],
      /^Error: \S+priv_validator_key\.json is not CometBFT's ed25519 validator key .+--cometbft-home.+--pubkey\n$/,
    ],
    [
      'unjail of a validator that is not jailed',
      () => ['tx', 'slashing', 'unjail', '--from', alice.address, '--home', node.home, '--json-rpc', node.http],
      /^Error: execution reverted: validator not jailed; cannot be unjailed\n$/,
    ],
    [
      'an account the key store does not hold',
      () => [
        'tx',
        'staking',
        'delegate',
        valoper(alice.address),
        '1',
        '--from',
        '0x' + '42'.repeat(20),
        '--home',
        node.home,
        '--json-rpc',
        node.http,
      ],
      /^Error: 0x4242\w+ is not in the key store \S+ \(kestreld keys list --home …\)\n$/,
    ],
    [
      'a wrong passphrase',
      () => {
        const pw = join(tmp, 'wrong-password');
        writeFileSync(pw, 'not the passphrase\n');
        return [
          'tx',
          'staking',
          'delegate',
          valoper(alice.address),
          '1',
          '--from',
          bob.address,
          '--home',
          node.home,
          '--json-rpc',
          node.http,
          '--password-file',
          pw,
        ];
      },
      /^Error: could not decrypt key with given password\n$/,
    ],
  ];
  for (const [name, args, stderr] of failures) {
    it(`fails with one line and exit code 1 on ${name}`, async () => {
      const r = await cli(args());
      assert.equal(r.code, 1, r.stdout);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, stderr);
    });
  }
});
