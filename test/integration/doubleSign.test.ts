// Double signing on a real network: a copy of one validator's CometBFT key (and a fresh priv_validator_state) runs on
// a fifth node at the same time as the validator itself. On the key's proposer turn the two propose, and prevote,
// different blocks; the honest validators see the conflicting votes and CometBFT puts DuplicateVoteEvidence in a
// block, which FinalizeBlock hands to the app as `misbehavior`. The app slashes `slash_fraction_double_sign` of the
// validator's stake at the infraction (unbonding entries created since pay their share), jails it for ever,
// tombstones it, and the validator leaves CometBFT's set two heights later. Unjail is refused.
//
// Which unbonding entries are slashed (Cosmos SDK x/evidence + x/staking): the app slashes at distribution height
// H − 1 (H the evidence's height, ValidatorUpdateDelay = 1), and an entry pays initialBalance × fraction when its
// creation height is ≥ H − 1: those tokens were still in the power CometBFT gave the validator at H. The slash
// happens in the begin-block of the evidence's block, so an entry made by a transaction of that block is not slashed.
// H cannot be known beforehand, so four delegators undelegate one coin in turn in every block from the moment the
// copy starts until the evidence is in a block: there are entries on both sides of H − 1, and the test checks each
// against the rule. Blocks are a second apart so that the stream lands one entry per block on a loaded machine.
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { Interface } from 'ethers';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { cometbftMissing, cometRpc, CometNet, freePortBlock, type CometNode } from '../helpers/cometbft.ts';
import { rpc, rpcResult, sleep, waitFor, waitForReceipt } from '../helpers/node.ts';
import { sendTx, signTx } from '../helpers/tx.ts';

const STAKING = '0x0000000000000000000000000000000000000800';
const SLASHING = '0x0000000000000000000000000000000000000806';
const COIN = 10n ** 18n;
const DEC = 10n ** 18n;
const POWER = 100;
/** Blocks about a second apart: the stream of undelegations then lands one per block even on a loaded machine. */
const TIMEOUT_COMMIT = '1s';
/** slash_fraction_double_sign 0.05 as a LegacyDec. */
const FRACTION = DEC / 20n;
const UNBONDING_S = 60;
/** The SDK's default MaxEntries: unbonding entries per (delegator, validator). */
const MAX_ENTRIES = 7;
const DOUBLE_SIGN_JAIL_END = 253402300799n; // 9999-12-31T23:59:59Z
const stakingAbi = new Interface([
  'function delegate(address delegatorAddress, string validatorAddress, uint256 amount) returns (bool)',
  'function undelegate(address delegatorAddress, string validatorAddress, uint256 amount) returns (int64)',
  'function validator(address validatorAddress) view returns (tuple(string,string,bool,uint8,uint256,uint256,tuple(string,string,string,string,string),int64,int64,uint256,uint256))',
  'function delegation(address delegatorAddress, string validatorAddress) view returns (uint256 shares, tuple(string denom, uint256 amount) balance)',
  'function unbondingDelegation(address delegatorAddress, string validatorAddress) view returns (tuple(string,string,tuple(int64,int64,uint256,uint256,uint64,int64)[]))',
]);
const slashingAbi = new Interface([
  'function unjail(address validatorAddress) returns (bool)',
  'function getSigningInfo(address consAddress) view returns (tuple(address,int64,int64,int64,bool,int64))',
]);

type Tag = number | 'latest';
const tagOf = (t: Tag) => (t === 'latest' ? t : `0x${t.toString(16)}`);

async function ethCall(n: CometNode, to: string, data: string, at: Tag, from?: string): Promise<string> {
  return rpcResult(n.eth, 'eth_call', [{ to, data, ...(from ? { from } : {}) }, tagOf(at)]);
}

async function validatorAt(n: CometNode, operator: string, at: Tag): Promise<{ jailed: boolean; tokens: bigint }> {
  const [v] = stakingAbi.decodeFunctionResult(
    'validator',
    await ethCall(n, STAKING, stakingAbi.encodeFunctionData('validator', [operator]), at),
  );
  return { jailed: v[2], tokens: v[4] };
}

/** The tokens a delegation is worth. */
async function delegationAt(n: CometNode, delegator: string, operator: string, at: Tag): Promise<bigint> {
  const r = stakingAbi.decodeFunctionResult(
    'delegation',
    await ethCall(n, STAKING, stakingAbi.encodeFunctionData('delegation', [delegator, operator]), at),
  );
  return r.balance.amount as bigint;
}

interface Entry {
  creationHeight: number;
  initialBalance: bigint;
  balance: bigint;
}

async function entriesAt(n: CometNode, delegator: string, operator: string, at: Tag): Promise<Entry[]> {
  const [u] = stakingAbi.decodeFunctionResult(
    'unbondingDelegation',
    await ethCall(n, STAKING, stakingAbi.encodeFunctionData('unbondingDelegation', [delegator, operator]), at),
  );
  return u[2].map((e: any) => ({ creationHeight: Number(e[0]), initialBalance: e[2], balance: e[3] }));
}

async function signingInfo(n: CometNode, consAddress: string): Promise<{ jailedUntil: bigint; tombstoned: boolean }> {
  const [i] = slashingAbi.decodeFunctionResult(
    'getSigningInfo',
    await ethCall(n, SLASHING, slashingAbi.encodeFunctionData('getSigningInfo', [consAddress]), 'latest'),
  );
  return { jailedUntil: i[3], tombstoned: i[4] };
}

async function balanceAt(n: CometNode, address: string, at: Tag): Promise<bigint> {
  return BigInt(await rpcResult(n.eth, 'eth_getBalance', [address, tagOf(at)]));
}

/** CometBFT's validator set at a height: CometBFT address → power. */
async function cometValidators(n: CometNode, height?: number): Promise<Map<string, number>> {
  const res = await cometRpc(
    n.rpc,
    'validators',
    height === undefined ? { per_page: '100' } : { height: String(height), per_page: '100' },
  );
  return new Map(res.validators.map((v: any) => [v.address as string, Number(v.voting_power)]));
}

/** `/validators` at a height as one line, e.g. "h=25 [node0 100, node1 116, …] total 416". */
async function showValidators(net: CometNet, n: CometNode, height: number): Promise<string> {
  const set = await cometValidators(n, height);
  const names = new Map(net.nodes.map((x) => [readKey(net, x).address as string, x.name]));
  const rows = [...set].map(([a, p]) => `${names.get(a) ?? a} ${p}`);
  return `h=${height} [${rows.join(', ')}] total ${[...set.values()].reduce((s, p) => s + p, 0)}`;
}

function readKey(net: CometNet, n: { spec: { cometHome: string } }): any {
  return JSON.parse(readFileSync(join(net.dir, n.spec.cometHome, 'config', 'priv_validator_key.json'), 'utf8'));
}

describe('double signing on a CometBFT network', { skip: cometbftMissing(), timeout: 300_000 }, () => {
  let net: CometNet | undefined;
  let copy: CometNode | undefined;
  const nodes = () => net!.nodes;
  /** Delegates to the victim before the double sign and undelegates part of it then. */
  const holder = DEV_ACCOUNTS[6]!;
  /** Undelegate one coin a block, in turn, while the copy signs (7 entries each at most: the SDK's MaxEntries). */
  const streamers = [DEV_ACCOUNTS[5]!, DEV_ACCOUNTS[7]!, DEV_ACCOUNTS[8]!, DEV_ACCOUNTS[9]!];
  // Shared between the steps.
  let operator = '';
  let consAddress = '';
  let earlyEntryHeight = 0;
  let evidenceHeight = 0; // the block holding the evidence (He)
  let infraction = { height: 0, power: 0n, total: 0n };

  before(async () => {
    const params = {
      staking: { params: { unbonding_time: `${UNBONDING_S}s` } },
      slashing: {
        params: {
          slash_fraction_double_sign: '0.05',
          // Long enough that the victim's restarts and the copy's catching up never count as downtime.
          signed_blocks_window: '10000',
        },
      },
    };
    net = CometNet.create({
      validators: 4,
      basePort: await freePortBlock(5),
      args: ['--power', String(POWER), '--timeout-commit', TIMEOUT_COMMIT, '--genesis-params', JSON.stringify(params)],
    });
    await net.startAll();
    await Promise.all(nodes().map((n) => n.waitHeight(2, 120_000)));
    const victim = nodes()[1]!;
    const key = readKey(net, victim);
    consAddress = `0x${key.address}`;
    const genesis = JSON.parse(readFileSync(join(net.dir, victim.spec.appHome, 'config', 'genesis.json'), 'utf8'));
    operator = genesis.app_state.staking.validators.find((v: any) => v.consensus_pubkey === key.pub_key.value)
      .operator_address as string;
  });
  afterEach((t) => {
    if ((t as { passed?: boolean }).passed === false) {
      net?.printLogs(`failed: ${(t as { name?: string }).name}`);
      if (copy) process.stderr.write(copy.logs() + '\n');
    }
  });
  after(async () => {
    await copy?.kill();
    await net?.dispose();
  });

  it('before: delegations to the victim, and an unbonding entry made before any double sign', async () => {
    const n0 = nodes()[0]!;
    // The holder's 10 coins and the streamers' 8 each (7 one-coin entries and a spare: after the slash a last coin
    // would be worth less than one), less the holder's 3: the victim has 139 of 439, under a third (with more, two
    // signers of one key could make honest validators commit different blocks).
    const sent = await Promise.all(
      [holder, ...streamers].map(async (d) =>
        sendTx(n0.eth, d.privateKey, {
          to: STAKING,
          data: stakingAbi.encodeFunctionData('delegate', [d.address, operator, (d === holder ? 10n : 8n) * COIN]),
          gas: 400_000n,
        }),
      ),
    );
    for (const s of sent) assert.equal(s.receipt.status, '0x1');
    const u = await sendTx(n0.eth, holder.privateKey, {
      to: STAKING,
      data: stakingAbi.encodeFunctionData('undelegate', [holder.address, operator, 3n * COIN]),
      gas: 400_000n,
    });
    assert.equal(u.receipt.status, '0x1');
    earlyEntryHeight = Number(u.receipt.blockNumber);
    await n0.waitHeight(earlyEntryHeight + 3, 60_000);
    const set = await cometValidators(n0, earlyEntryHeight + 2);
    assert.equal(set.get(consAddress.slice(2)), POWER + 39, 'victim: 100 + 10 + 4 × 8 − 3');
    console.log(`/validators before the double sign: ${await showValidators(net!, n0, earlyEntryHeight + 2)}`);
  });

  it('a copy of the victim’s key on a fifth node signs at the same time; the evidence reaches a block', async () => {
    const n0 = nodes()[0]!;
    const victim = nodes()[1]!;
    // node4: its own app and CometBFT home, peering with the validators, but the victim's key and a fresh
    // priv_validator_state (height 0: it signs whatever comes, which the victim's own state would refuse).
    copy = net!.addNode(4, { timeoutCommit: TIMEOUT_COMMIT });
    const copyHome = join(net!.dir, copy.spec.cometHome);
    copyFileSync(
      join(net!.dir, victim.spec.cometHome, 'config', 'priv_validator_key.json'),
      join(copyHome, 'config', 'priv_validator_key.json'),
    );
    const state = JSON.parse(readFileSync(join(copyHome, 'data', 'priv_validator_state.json'), 'utf8'));
    assert.equal(state.height, '0');
    // Every streamed undelegation signed beforehand (in turn from each streamer, nonces in order, a fee cap far above
    // the base fee), so that sending one is a single call in the moment a new block is seen.
    const tip = BigInt(await rpcResult<string>(n0.eth, 'eth_maxPriorityFeePerGas'));
    const latest = await rpcResult(n0.eth, 'eth_getBlockByNumber', ['latest', false]);
    const maxFeePerGas = BigInt(latest.baseFeePerGas) * 10n + tip;
    const nonces = await Promise.all(
      streamers.map(async (d) =>
        Number(BigInt(await rpcResult(n0.eth, 'eth_getTransactionCount', [d.address, 'pending']))),
      ),
    );
    const queue: Array<{ raw: string; hash: string }> = [];
    for (let i = 0; i < MAX_ENTRIES * streamers.length; i++) {
      const j = i % streamers.length;
      const d = streamers[j]!;
      queue.push(
        await signTx(n0.eth, d.privateKey, {
          to: STAKING,
          data: stakingAbi.encodeFunctionData('undelegate', [d.address, operator, COIN]),
          gas: 400_000n,
          nonce: nonces[j]! + Math.floor(i / streamers.length),
          maxFeePerGas,
          maxPriorityFeePerGas: tip,
        }),
      );
    }
    const t0 = Date.now();
    await copy.start();
    // The copy's CometBFT has just started: it block-syncs first and signs nothing before it switches to consensus
    // (a second at least), so the stream's first entry comes before any double sign.
    const streamed: string[] = [];
    let seen = 0;
    let caughtUp = 0;
    const turns: number[] = []; // heights the victim's key proposed (round 0 or later)
    const log: string[] = [];
    for (;;) {
      if (Date.now() - t0 > 150_000) throw new Error(`no evidence after 150 s\n${log.join('\n')}`);
      const h = await n0.height();
      if (h === undefined || h === seen) {
        await sleep(40);
        continue;
      }
      seen = h;
      const block = await cometRpc(n0.rpc, 'block', { height: String(h) });
      const evidence = (block.block.evidence.evidence as any[]).find(
        (e) => e.type === 'tendermint/DuplicateVoteEvidence' && `0x${e.value.vote_a.validator_address}` === consAddress,
      );
      const copyHeight = await copy.height();
      const proposer = block.block.header.proposer_address as string;
      if (`0x${proposer}` === consAddress) turns.push(h);
      if (caughtUp === 0 && copyHeight !== undefined && copyHeight >= h - 1) caughtUp = h;
      log.push(`${((Date.now() - t0) / 1000).toFixed(1)} s: height ${h} (copy at ${copyHeight}), proposer ${proposer}`);
      if (evidence !== undefined) {
        const v = evidence.value;
        evidenceHeight = h;
        infraction = {
          height: Number(v.vote_a.height),
          power: BigInt(v.ValidatorPower),
          total: BigInt(v.TotalVotingPower),
        };
        assert.notDeepEqual(v.vote_a.block_id, v.vote_b.block_id, 'two different blocks signed');
        assert.equal(v.vote_a.round, v.vote_b.round);
        assert.equal(v.vote_a.type, v.vote_b.type);
        console.log(
          `evidence in block ${h}: ${v.vote_a.type === 1 ? 'prevotes' : 'precommits'} for two blocks at height ` +
            `${v.vote_a.height} round ${v.vote_a.round}, validator power ${v.ValidatorPower} of ${v.TotalVotingPower}`,
        );
        break;
      }
      const next = queue.shift();
      if (next === undefined) throw new Error(`no evidence within ${streamed.length} blocks\n${log.join('\n')}`);
      assert.equal(await rpcResult(n0.eth, 'eth_sendRawTransaction', [next.raw]), next.hash);
      streamed.push(next.hash);
    }
    // The copy has done its part.
    await copy.kill();
    const heights: number[] = [];
    for (const hash of streamed) {
      const r = await waitForReceipt(n0.eth, hash, 30_000);
      assert.equal(r.status, '0x1');
      heights.push(Number(r.blockNumber));
    }
    console.log(
      `the copy caught up at height ${caughtUp}; the victim's key proposed ${turns.join(', ')}; ` +
        `streamed undelegations in blocks ${heights.join(', ')}`,
    );
    assert.ok(evidenceHeight > infraction.height);
    // CometBFT's evidence carries the victim's power in /validators at the infraction height.
    assert.equal(
      BigInt((await cometValidators(n0, infraction.height)).get(consAddress.slice(2))!),
      infraction.power,
      'evidence power = /validators at the infraction',
    );
    console.log(`/validators at the infraction: ${await showValidators(net!, n0, infraction.height)}`);
  });

  it('the validator is slashed by exactly the fraction, jailed for ever, tombstoned, and leaves the set', async () => {
    const n0 = nodes()[0]!;
    const he = evidenceHeight;
    const info = await signingInfo(n0, consAddress);
    assert.equal(info.tombstoned, true);
    assert.equal(info.jailedUntil, DOUBLE_SIGN_JAIL_END);
    const before = await validatorAt(n0, operator, he - 1);
    const after = await validatorAt(n0, operator, he);
    assert.equal(before.jailed, false);
    assert.equal(after.jailed, true);

    // Every unbonding entry with the victim: slashed when created at or after H − 1 and before the evidence's block.
    const distributionHeight = infraction.height - 1;
    let slashedFromEntries = 0n;
    let slashedCount = 0;
    let madeInEvidenceBlock = 0n;
    for (const d of [holder, ...streamers]) {
      const was = await entriesAt(n0, d.address, operator, he - 1);
      const now = await entriesAt(n0, d.address, operator, he);
      for (const e of now) {
        const prior = was.find((x) => x.creationHeight === e.creationHeight);
        if (e.creationHeight === he) {
          assert.equal(prior, undefined);
          assert.equal(e.balance, e.initialBalance, `entry made in the evidence's block ${he}: after the slash`);
          madeInEvidenceBlock += e.initialBalance;
          continue;
        }
        assert.ok(prior, `entry at ${e.creationHeight} existed before`);
        const share = (e.initialBalance * FRACTION) / DEC;
        if (e.creationHeight >= distributionHeight) {
          assert.equal(e.balance, prior.balance - share, `entry at ${e.creationHeight} pays initialBalance × 0.05`);
          slashedFromEntries += share;
          slashedCount++;
        } else {
          assert.equal(e.balance, prior.balance, `entry at ${e.creationHeight} (before H − 1) is not slashed`);
        }
      }
      assert.equal(now.filter((e) => e.creationHeight < he).length, was.length, 'no entry matured meanwhile');
    }
    assert.ok(slashedCount > 0, 'at least one entry made since the infraction');
    const early = (await entriesAt(n0, holder.address, operator, he)).find(
      (e) => e.creationHeight === earlyEntryHeight,
    );
    assert.deepEqual(early, { creationHeight: earlyEntryHeight, initialBalance: 3n * COIN, balance: 3n * COIN });

    // The SDK's slash amount: power at the infraction × 10^18 × fraction; the entries pay their part, the validator's
    // tokens the rest, which is the fraction of its tokens just before the slash.
    const total = (infraction.power * COIN * FRACTION) / DEC;
    const cut = before.tokens - after.tokens - madeInEvidenceBlock;
    assert.equal(cut + slashedFromEntries, total, 'power × 10^18 × 0.05 burned in all');
    assert.equal(cut, (before.tokens * FRACTION) / DEC, 'the validator loses exactly 5% of its tokens');
    console.log(
      `double sign at ${infraction.height} (power ${infraction.power}), evidence in block ${he}: slash ` +
        `${total} = ${slashedCount} unbonding entries × 0.05 coin (${slashedFromEntries}) + validator tokens ` +
        `${before.tokens} → ${before.tokens - cut} (−${cut})`,
    );

    // The holder's delegation is worth 5% less.
    const dBefore = await delegationAt(n0, holder.address, operator, he - 1);
    const dAfter = await delegationAt(n0, holder.address, operator, he);
    assert.equal(dBefore, 7n * COIN);
    assert.equal(dAfter, dBefore - (dBefore * FRACTION) / DEC);
    console.log(`holder's delegation ${dBefore} → ${dAfter}; its entry from block ${earlyEntryHeight} stays 3 coins`);

    // Out of CometBFT's set two heights after the block that jailed it.
    await n0.waitHeight(he + 3, 60_000);
    assert.ok((await cometValidators(n0, he + 1)).has(consAddress.slice(2)), 'still in the set at He + 1');
    assert.equal((await cometValidators(n0, he + 2)).has(consAddress.slice(2)), false, 'gone at He + 2');
    console.log(`/validators after the double sign: ${await showValidators(net!, n0, he + 2)}`);
  });

  it('unjail is refused: a tombstoned validator stays jailed', async () => {
    const n0 = nodes()[0]!;
    const data = slashingAbi.encodeFunctionData('unjail', [operator]);
    const res = await rpc(n0.eth, 'eth_call', [{ from: operator, to: SLASHING, data }, 'latest']);
    assert.match(JSON.stringify(res.error), /validator still jailed/);
  });

  it('a slashed unbonding entry pays back its slashed balance when it matures', async () => {
    const n0 = nodes()[0]!;
    const head = Number(await rpcResult(n0.eth, 'eth_blockNumber', []));
    for (const d of [holder, ...streamers]) {
      const entries = await entriesAt(n0, d.address, operator, head);
      const owed = entries.reduce((s, e) => s + e.balance, 0n);
      const start = await balanceAt(n0, d.address, head);
      await waitFor(
        `${d.address}'s entries matured`,
        async () => ((await entriesAt(n0, d.address, operator, 'latest')).length === 0 ? true : undefined),
        (UNBONDING_S + 60) * 1000,
      );
      assert.equal(await balanceAt(n0, d.address, 'latest'), start + owed);
    }
  });
});
