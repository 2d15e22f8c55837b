// Proof of stake from the EVM on a dev node: the staking, distribution, slashing, bank and bech32 precompiles at
// Cosmos EVM's addresses, called with ethers and from a Solidity contract. State follows the transaction: a revert
// undoes it; another account's stake cannot be moved; DELEGATECALL is refused; unbonded tokens come back after the
// unbonding time, not before.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';
import {
  Contract,
  ContractFactory,
  Interface,
  JsonRpcProvider,
  Wallet,
  parseEther,
  type TransactionReceipt,
} from 'ethers';
import { CHAIN_ID, nonCoinbaseAccounts } from '../helpers/accounts.ts';
import { type KestrelNode, printLogsOnFailure, rpcResult, startNode } from '../helpers/node.ts';
import {
  BANK,
  bankAbi,
  BECH32,
  bech32Abi,
  DISTRIBUTION,
  distributionAbi,
  STAKING,
  stakingAbi,
} from '../helpers/precompileAbi.ts';
import { compileSource } from '../helpers/solc.ts';

const DELEGATOR_SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
interface IStaking {
  function delegate(address delegatorAddress, string memory validatorAddress, uint256 amount) external returns (bool);
  function undelegate(address delegatorAddress, string memory validatorAddress, uint256 amount) external returns (int64);
}
contract Delegator {
  IStaking constant STAKING = IStaking(0x0000000000000000000000000000000000000800);
  receive() external payable {}
  function stake(string calldata validator, uint256 amount) external { STAKING.delegate(address(this), validator, amount); }
  function stakeThenRevert(string calldata validator, uint256 amount) external {
    STAKING.delegate(address(this), validator, amount);
    revert("changed my mind");
  }
  function unstake(string calldata validator, uint256 amount) external { STAKING.undelegate(address(this), validator, amount); }
  function viaDelegatecall(string calldata validator, uint256 amount) external returns (bool ok, bytes memory out) {
    (ok, out) = address(STAKING).delegatecall(abi.encodeCall(IStaking.delegate, (address(this), validator, amount)));
  }
}`;

describe('staking precompiles on a dev node', { timeout: 180_000 }, () => {
  let node: KestrelNode;
  let provider: JsonRpcProvider;
  let alice: Wallet;
  let bob: Wallet;
  let staking: Contract;
  const pubkey = randomBytes(32).toString('base64');

  const send = async (p: Promise<{ wait(): Promise<TransactionReceipt | null> }>) => (await (await p).wait())!;
  const validatorOf = async (addr: string) => (await staking.getFunction('validator').staticCall(addr)) as any;

  before(async () => {
    node = await startNode();
    provider = new JsonRpcProvider(node.http, CHAIN_ID, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 });
    const coinbase: string = await provider.send('eth_coinbase', []);
    const [a, b] = nonCoinbaseAccounts(coinbase);
    alice = new Wallet(a!.privateKey, provider);
    bob = new Wallet(b!.privateKey, provider);
    staking = new Contract(STAKING, stakingAbi, alice);
  });
  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    provider?.destroy();
    await node?.dispose();
  });

  it('createValidator bonds the operator: it is in the set at the end of the block, with its event', async () => {
    const before = await provider.getBalance(alice.address);
    const tx = await staking.getFunction('createValidator')(
      ['alice', '', '', '', ''],
      [parseEther('0.1'), parseEther('0.2'), parseEther('0.01')],
      1n,
      alice.address,
      pubkey,
      parseEther('100'),
    );
    const r: TransactionReceipt = (await tx.wait())!;
    assert.equal(r.status, 1);
    const ev = r.logs.map((l: any) => stakingAbi.parseLog(l)).find((l: any) => l?.name === 'CreateValidator');
    assert.equal(ev?.args[0], alice.address);
    assert.equal(ev?.args[1], parseEther('100'));
    const v = await validatorOf(alice.address);
    assert.equal(v.tokens, parseEther('100'));
    assert.equal(v.status, 3n, 'bonded');
    assert.equal(v.consensusPubkey, pubkey);
    const after = await provider.getBalance(alice.address);
    assert.equal(before - after, parseEther('100') + r.gasUsed * r.gasPrice);
  });

  it('refuses a second validator for the same operator or key, and bad input, with clear reasons', async () => {
    const args = (key: string, value: bigint, rate = parseEther('0.1')) => [
      ['again', '', '', '', ''],
      [rate, parseEther('0.2'), parseEther('0.01')],
      1n,
      alice.address,
      key,
      value,
    ];
    const reason = async (a: unknown[], from = alice) => {
      try {
        await staking
          .connect(from)
          .getFunction('createValidator')
          .staticCall(...a);
        return 'no revert';
      } catch (e: any) {
        return String(e.reason ?? e.shortMessage ?? e.message);
      }
    };
    assert.match(await reason(args(randomBytes(32).toString('base64'), 1n)), /already exist for this operator/);
    assert.match(
      await reason(
        args(pubkey, 1n).map((x, i) => (i === 3 ? bob.address : x)),
        bob,
      ),
      /pubkey/,
    );
    // As bob (not a validator yet), so each refusal is the one named.
    const asBob = (a: unknown[]) =>
      reason(
        a.map((x, i) => (i === 3 ? bob.address : x)),
        bob,
      );
    const fresh = () => randomBytes(32).toString('base64');
    assert.match(await asBob(args(fresh(), 1n, parseEther('0.5'))), /commission cannot be more than the max rate/);
    assert.match(await asBob(args('not base64', 1n)), /consensus pubkey must be the base64 of a 32-byte ed25519/);
    assert.match(await asBob(args(randomBytes(33).toString('base64'), 1n)), /32-byte ed25519/);
    assert.match(await asBob(args(fresh(), 0n)), /invalid delegation amount/);
    assert.match(await asBob(args(fresh(), parseEther('100000'))), /insufficient funds/);
    const noMoniker = args(fresh(), 1n);
    noMoniker[0] = ['', '', '', '', ''];
    assert.match(await asBob(noMoniker), /moniker is required/);
    assert.match(await reason(args(fresh(), 1n).map((x, i) => (i === 3 ? bob.address : x))), /does not match/);
    assert.match(await reason(args(randomBytes(32).toString('base64'), 1n), bob), /does not match the requester/);
  });

  it('delegate moves the delegator balance into the validator; estimateGas is exact; no one moves another stake', async () => {
    const s = staking.connect(bob) as Contract;
    const data = stakingAbi.encodeFunctionData('delegate', [bob.address, alice.address, parseEther('50')]);
    const estimate = BigInt(await provider.send('eth_estimateGas', [{ from: bob.address, to: STAKING, data }]));
    const r = await send(s.getFunction('delegate')(bob.address, alice.address, parseEther('50')));
    assert.equal(r.status, 1);
    assert.equal(r.gasUsed, estimate);
    const v = await validatorOf(alice.address);
    assert.equal(v.tokens, parseEther('150'));
    const [shares, balance] = await s.getFunction('delegation').staticCall(bob.address, alice.address);
    assert.equal(balance.amount, parseEther('50'));
    assert.equal(shares, parseEther('50') * 10n ** 18n);
    await assert.rejects(
      s.getFunction('delegate').staticCall(alice.address, alice.address, 1n),
      /does not match the requester address/,
    );
    await assert.rejects(
      s.getFunction('delegate').staticCall(bob.address, alice.address, 0n),
      /invalid delegation amount/,
    );
    await assert.rejects(
      s.getFunction('delegate').staticCall(bob.address, bob.address, 1n),
      /validator does not exist/,
    );
    await assert.rejects(
      s.getFunction('undelegate').staticCall(bob.address, alice.address, parseEther('51')),
      /invalid shares amount/,
    );
    const dist = new Contract(DISTRIBUTION, distributionAbi, provider);
    const vals: string[] = await dist.getFunction('delegatorValidators').staticCall(bob.address);
    assert.equal(vals.length, 1);
    assert.match(vals[0]!, /valoper1/);
  });

  it('debug_traceTransaction shows the precompile frame (callTracer) and its storage (prestateTracer)', async () => {
    const s = staking.connect(bob) as Contract;
    const r = await send(s.getFunction('delegate')(bob.address, alice.address, 1n));
    assert.equal(r.status, 1);
    const call = await provider.send('debug_traceTransaction', [r.hash, { tracer: 'callTracer' }]);
    assert.equal(call.to, STAKING);
    assert.equal(call.input, stakingAbi.encodeFunctionData('delegate', [bob.address, alice.address, 1n]));
    assert.equal(call.output, '0x' + '1'.padStart(64, '0'));
    assert.equal(BigInt(call.gasUsed), r.gasUsed);
    const pre = await provider.send('debug_traceTransaction', [
      r.hash,
      { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
    ]);
    assert.ok(Object.keys(pre.post[STAKING]?.storage ?? {}).length > 0, 'the staking state changed');
  });

  it('undelegated tokens come back after the unbonding time, not before', async () => {
    const s = staking.connect(bob) as Contract;
    const r = await send(s.getFunction('undelegate')(bob.address, alice.address, parseEther('20')));
    assert.equal(r.status, 1);
    // The entries by index: ethers' Result is an Array, so a field named `entries` is Array.prototype.entries.
    const ub = await s.getFunction('unbondingDelegation').staticCall(bob.address, alice.address);
    assert.equal(ub[2].length, 1);
    assert.equal(ub[2][0].balance, parseEther('20'));
    const block = await provider.getBlock(r.blockNumber);
    assert.equal(ub[2][0].completionTime, BigInt(block!.timestamp) + 21n * 24n * 3600n);
    const held = await provider.getBalance(bob.address);
    await provider.send('evm_mine', []);
    assert.equal(await provider.getBalance(bob.address), held, 'not before the unbonding time');
    // A day more than the unbonding time: evm_increaseTime moves the clock by its amount from the wall clock, and quick
    // blocks run ahead of it.
    await provider.send('evm_increaseTime', [22 * 24 * 3600]);
    await provider.send('evm_mine', []);
    assert.equal(await provider.getBalance(bob.address), held + parseEther('20'));
    const after = await s.getFunction('unbondingDelegation').staticCall(bob.address, alice.address);
    assert.equal(after[2].length, 0);
    assert.equal((await validatorOf(alice.address)).tokens, parseEther('130') + 1n);
  });

  it('a contract delegates from its own balance; a revert after the call leaves no trace; DELEGATECALL is refused', async () => {
    const { Delegator } = compileSource(DELEGATOR_SOURCE, 'Delegator.sol');
    const factory = new ContractFactory(Delegator!.abi, Delegator!.bytecode, bob);
    const c = (await factory.deploy()) as Contract;
    await c.waitForDeployment();
    const addr = await c.getAddress();
    await send(bob.sendTransaction({ to: addr, value: parseEther('10') }));
    const tokens = (await validatorOf(alice.address)).tokens as bigint;
    const reverted = await c
      .getFunction('stakeThenRevert')
      .send(alice.address, parseEther('3'), { gasLimit: 1_000_000 })
      .then((t) => t.wait().catch((e: any) => e.receipt));
    assert.equal(reverted.status, 0, 'the transaction reverted');
    assert.equal((await validatorOf(alice.address)).tokens, tokens);
    assert.equal(await provider.getBalance(addr), parseEther('10'));
    const [ok, out] = await c.getFunction('viaDelegatecall').staticCall(alice.address, 1n);
    assert.equal(ok, false);
    assert.match(new Interface(['error Error(string)']).decodeErrorResult('Error', out)[0], /DELEGATECALL/);
    await send(c.getFunction('stake')(alice.address, parseEther('3')));
    assert.equal((await validatorOf(alice.address)).tokens, tokens + parseEther('3'));
    assert.equal(await provider.getBalance(addr), parseEther('7'));
    await send(c.getFunction('unstake')(alice.address, parseEther('3')));
    assert.equal((await validatorOf(alice.address)).tokens, tokens);
  });

  it('the staking state survives kill -9: the same validator, delegation and unbonding entries after a restart', async () => {
    const s = () => staking.connect(bob) as Contract;
    const v = await validatorOf(alice.address);
    const [shares] = await s().getFunction('delegation').staticCall(bob.address, alice.address);
    const head = await provider.getBlockNumber();
    assert.equal(await node.stop('SIGKILL'), null);
    provider.destroy();
    node = await node.restart();
    provider = new JsonRpcProvider(node.http, CHAIN_ID, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 });
    staking = new Contract(STAKING, stakingAbi, alice.connect(provider));
    alice = alice.connect(provider);
    bob = bob.connect(provider);
    assert.ok((await provider.getBlockNumber()) >= head);
    // ethers' Result is a Proxy that Node 22's deepEqual does not see through: compare plain arrays.
    assert.deepEqual((await validatorOf(alice.address)).toArray(true), v.toArray(true));
    const [after] = await s().getFunction('delegation').staticCall(bob.address, alice.address);
    assert.equal(after, shares);
  });

  it('bank and bech32 precompiles answer; the supply is the sum of genesis balances', async () => {
    const bank = new Contract(BANK, bankAbi, provider);
    const [[, supply]] = await bank.getFunction('totalSupply').staticCall();
    assert.equal(supply, 10n * 10_000n * 10n ** 18n);
    const b32 = new Contract(BECH32, bech32Abi, provider);
    const text: string = await b32.getFunction('hexToBech32').staticCall(alice.address, 'kestrel');
    assert.match(text, /^kestrel1/);
    assert.equal(await b32.getFunction('bech32ToHex').staticCall(text), alice.address);
    const fromRpc = await rpcResult(node.http, 'eth_call', [
      { to: BECH32, data: bech32Abi.encodeFunctionData('bech32ToHex', [text]) },
      'latest',
    ]);
    assert.equal(fromRpc.slice(-40).toLowerCase(), alice.address.slice(2).toLowerCase());
  });
});
