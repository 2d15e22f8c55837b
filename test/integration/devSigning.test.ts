// Dev-mode signing and bookkeeping as tools expect (issue 29 item 7), against a real `kestreld start --dev` beside
// Anvil 1.7.1: ethers' JsonRpcSigner.signMessage (personal_sign without a passphrase) works for the dev accounts
// without the bearer token and signs as Anvil does, while every other private call stays closed; after
// anvil_setBalance / hardhat_setBalance the bank's supply (gRPC and the bank precompile) moves by the change.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { Interface, JsonRpcProvider, Wallet, hexlify, toUtf8Bytes } from 'ethers';
import { startAnvil } from '../../bench/nodes/anvil.ts';
import type { RunningNode } from '../../bench/nodes/types.ts';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { bankClient, type BankClient } from '../helpers/cosmos.ts';
import { type KestrelNode, printLogsOnFailure, rpc, rpcResult, startNode } from '../helpers/node.ts';
import { privateRpc } from '../helpers/privateRpc.ts';

const UNAUTHORIZED = { code: 4100, message: 'unauthorized' };
const BANK = '0x0000000000000000000000000000000000000804';
const bankAbi = new Interface(['function totalSupply() view returns (tuple(address,uint256)[])']);
const OTHER_KEY = '0x' + '42'.repeat(32);

describe('dev-mode signing and supply bookkeeping', { timeout: 120_000 }, () => {
  let node: KestrelNode;
  let anvil: RunningNode;
  let grpc: BankClient;

  before(async () => {
    [node, anvil] = await Promise.all([startNode(), startAnvil()]);
    grpc = bankClient(node.grpc);
  });
  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    grpc?.close();
    await Promise.all([node?.dispose(), anvil?.stop()]);
  });

  it("ethers' JsonRpcSigner.signMessage signs with a dev account without the token, as on Anvil", async () => {
    const dev = DEV_ACCOUNTS[2]!;
    const msg = 'sign in to the dapp';
    const expected = await new Wallet(dev.privateKey).signMessage(msg);
    for (const url of [node.http, anvil.url]) {
      const signer = await new JsonRpcProvider(url, undefined, { staticNetwork: true }).getSigner(dev.address);
      assert.equal(await signer.signMessage(msg), expected, url);
    }
    // The raw call, address lower-case, and with the empty passphrase of the dev key files.
    const data = hexlify(toUtf8Bytes(msg));
    assert.equal(await rpcResult(node.http, 'personal_sign', [data, dev.address.toLowerCase()]), expected);
    assert.equal(await rpcResult(node.http, 'personal_sign', [data, dev.address, '']), expected);
  });

  it('every other private call without the token stays 4100, personal_sign for other accounts too', async () => {
    const other = new Wallet(OTHER_KEY);
    const imported = await privateRpc(node, 'personal_importRawKey', [OTHER_KEY, 'pw']);
    assert.equal(imported.result, other.address.toLowerCase());
    assert.equal((await privateRpc(node, 'personal_unlockAccount', [other.address, 'pw', 0])).result, true);
    const data = hexlify(toUtf8Bytes('hi'));
    assert.deepEqual((await rpc(node.http, 'personal_sign', [data, other.address])).error, UNAUTHORIZED);
    assert.deepEqual((await rpc(node.http, 'personal_sign', [data, other.address, 'pw'])).error, UNAUTHORIZED);
    // Malformed params without the token say nothing but "unauthorized".
    for (const params of [[], [data], ['nothex', DEV_ACCOUNTS[0]!.address], [data, '0x12']])
      assert.deepEqual((await rpc(node.http, 'personal_sign', params)).error, UNAUTHORIZED, JSON.stringify(params));
    for (const [method, params] of [
      ['personal_listAccounts', []],
      ['personal_unlockAccount', [DEV_ACCOUNTS[0]!.address, '', 0]],
      ['personal_sendTransaction', [{ from: DEV_ACCOUNTS[0]!.address, to: other.address }, '']],
      ['personal_signTransaction', [{ from: DEV_ACCOUNTS[0]!.address, to: other.address }, '']],
      ['miner_setEtherbase', [other.address]],
    ] as const)
      assert.deepEqual((await rpc(node.http, method, [...params])).error, UNAUTHORIZED, method);
    // With the token the imported account signs.
    assert.equal(
      (await privateRpc(node, 'personal_sign', [data, other.address])).result,
      await other.signMessage('hi'),
    );
  });

  it('anvil_setBalance / hardhat_setBalance move the supply (gRPC and the bank precompile) by the change', async () => {
    const supplyGrpc = async () => BigInt((await grpc.call('SupplyOf', { denom: 'akestrel' })).res.amount.amount);
    const supplyPrecompile = async () => {
      const out = await rpcResult(node.http, 'eth_call', [
        { to: BANK, data: bankAbi.encodeFunctionData('totalSupply', []) },
        'latest',
      ]);
      return bankAbi.decodeFunctionResult('totalSupply', out)[0][0][1] as bigint;
    };
    const balance = async (a: string) => BigInt(await rpcResult(node.http, 'eth_getBalance', [a, 'latest']));
    const s0 = await supplyGrpc();
    assert.equal(await supplyPrecompile(), s0);

    const fresh = '0x' + '3c'.repeat(20);
    await rpcResult(node.http, 'anvil_setBalance', [fresh, '0xde0b6b3a7640000']);
    assert.equal(await supplyGrpc(), s0 + 10n ** 18n, 'a new account minted 1 token');
    assert.equal(await supplyPrecompile(), s0 + 10n ** 18n);

    const rich = DEV_ACCOUNTS[7]!.address;
    const had = await balance(rich);
    await rpcResult(node.http, 'hardhat_setBalance', [rich, '0x5']);
    assert.equal(await supplyGrpc(), s0 + 10n ** 18n - (had - 5n), 'lowering a balance burns the difference');
    assert.equal(await supplyPrecompile(), await supplyGrpc());

    await rpcResult(node.http, 'anvil_setBalance', [fresh, '0x0']);
    await rpcResult(node.http, 'anvil_setBalance', [rich, `0x${had.toString(16)}`]);
    assert.equal(await supplyGrpc(), s0, 'restoring both balances restores the supply');
    assert.equal(await supplyPrecompile(), s0);

    // Edits that leave balances alone leave the supply alone.
    await rpcResult(node.http, 'anvil_setNonce', [fresh, '0x3']);
    await rpcResult(node.http, 'anvil_setBalance', [rich, `0x${had.toString(16)}`]);
    assert.equal(await supplyGrpc(), s0);
  });
});
