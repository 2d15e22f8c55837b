// Dev conveniences (issue 29 item 6) on a real `kestreld start --dev` beside Anvil 1.7.1: auto-impersonation
// (anvil_autoImpersonateAccount and --auto-impersonate), anvil_dealERC20 and anvil_setERC20Allowance on a token
// compiled here whose mappings sit at slots 3 and 7 (found by probing the slots balanceOf/allowance read).
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { startAnvil } from '../../bench/nodes/anvil.ts';
import type { RunningNode } from '../../bench/nodes/types.ts';
import { Interface } from 'ethers';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { type KestrelNode, printLogsOnFailure, rpc, rpcResult, startNode, waitForReceipt } from '../helpers/node.ts';
import { type CompiledContract, compileSource } from '../helpers/solc.ts';

const TOKEN_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Token {
    string public name = "Dev";
    uint8 public decimals = 18;
    uint256 public totalSupply;
    mapping(address => uint256) private balances;
    address public owner = msg.sender;
    uint256[3] private padding;
    mapping(address => mapping(address => uint256)) private allowances;
    function balanceOf(address a) external view returns (uint256) { return balances[a]; }
    function allowance(address o, address s) external view returns (uint256) { return allowances[o][s]; }
    function transfer(address to, uint256 v) external returns (bool) {
        balances[msg.sender] -= v; balances[to] += v; return true;
    }
    function transferFrom(address f, address to, uint256 v) external returns (bool) {
        allowances[f][msg.sender] -= v; balances[f] -= v; balances[to] += v; return true;
    }
}`;

const stranger = '0x' + '2b'.repeat(20);
const to = '0x' + '3c'.repeat(20);

describe('dev conveniences beside Anvil', { timeout: 120_000 }, () => {
  let node: KestrelNode;
  let flagged: KestrelNode;
  let anvil: RunningNode;

  let token: CompiledContract;

  before(async () => {
    // Compiled before any connection opens: solc holds this process for seconds, and a keep-alive socket left idle
    // meanwhile may be closed under the next request.
    token = compileSource(TOKEN_SOURCE, 'Token.sol')['Token']!;
    [node, flagged, anvil] = await Promise.all([
      startNode(),
      startNode({ args: ['--auto-impersonate'] }),
      startAnvil(),
    ]);
  });
  afterEach(printLogsOnFailure(() => [node, flagged]));
  after(async () => {
    await Promise.all([node?.dispose(), flagged?.dispose(), anvil?.stop()]);
  });

  const sendFromStranger = (url: string) =>
    rpc<string>(url, 'eth_sendTransaction', [{ from: stranger, to, value: '0x1', gas: '0x5208' }]);

  it('anvil_autoImpersonateAccount(true) lets any address send without its key, (false) stops it, as on Anvil', async () => {
    for (const url of [node.http, anvil.url]) {
      await rpcResult(url, 'anvil_setBalance', [stranger, '0xde0b6b3a7640000']);
      assert.ok((await sendFromStranger(url)).error, `${url}: refused before`);
      assert.equal(await rpcResult(url, 'anvil_autoImpersonateAccount', [true]), null);
      const sent = await sendFromStranger(url);
      assert.equal(sent.error, undefined, JSON.stringify(sent.error));
      const receipt = await waitForReceipt(url, sent.result!);
      assert.equal(receipt.status, '0x1');
      assert.equal(receipt.from, stranger);
      assert.equal(await rpcResult(url, 'hardhat_autoImpersonateAccount', [false]), null);
      assert.ok((await sendFromStranger(url)).error, `${url}: refused after`);
      assert.equal((await rpc(url, 'anvil_autoImpersonateAccount', ['yes'])).error?.code, -32602);
    }
  });

  it('--auto-impersonate starts with it on', async () => {
    await rpcResult(flagged.http, 'anvil_setBalance', [stranger, '0xde0b6b3a7640000']);
    const sent = await sendFromStranger(flagged.http);
    assert.equal((await waitForReceipt(flagged.http, sent.result!)).status, '0x1');
  });

  it("anvil_dealERC20 and anvil_setERC20Allowance set what balanceOf and allowance read; no slot: Anvil's error", async () => {
    const abi = new Interface(token.abi);
    const holder = DEV_ACCOUNTS[1]!.address;
    const spender = DEV_ACCOUNTS[2]!.address;
    const amount = 10n ** 24n + 7n;
    // Anvil 1.7.1 answers "no slot found" even for a plain `mapping(address => uint) public balanceOf` token, so the
    // side-by-side check covers its refusal (below); the slot search runs on Kestrel.
    {
      const url = node.http;
      const deploy = await rpcResult(url, 'eth_sendTransaction', [
        { from: holder, data: token.bytecode, gas: '0x2dc6c0' },
      ]);
      const at = (await waitForReceipt(url, deploy)).contractAddress as string;
      const view = async (fn: string, args: unknown[]) =>
        BigInt(await rpcResult(url, 'eth_call', [{ to: at, data: abi.encodeFunctionData(fn, args) }, 'latest']));
      assert.equal(await rpcResult(url, 'anvil_dealERC20', [at, holder, `0x${amount.toString(16)}`]), null, url);
      assert.equal(await view('balanceOf', [holder]), amount, url);
      assert.equal(await view('balanceOf', [spender]), 0n, url);
      assert.equal(await view('totalSupply', []), 0n, `${url}: only the balance slot changes`);
      assert.equal(await rpcResult(url, 'anvil_setERC20Allowance', [at, holder, spender, '0x64']), null, url);
      assert.equal(await view('allowance', [holder, spender]), 100n, url);
      // The dealt balance and the allowance are real: transferFrom spends both.
      const sent = await rpcResult(url, 'eth_sendTransaction', [
        { from: spender, to: at, data: abi.encodeFunctionData('transferFrom', [holder, spender, 60n]), gas: '0x30d40' },
      ]);
      assert.equal((await waitForReceipt(url, sent)).status, '0x1', url);
      assert.equal(await view('balanceOf', [spender]), 60n, url);
      assert.equal(await view('allowance', [holder, spender]), 40n, url);
    }
    // No slot behind the view (an account without code): Anvil's error, code and words.
    for (const url of [node.http, anvil.url]) {
      const none = await rpc(url, 'anvil_dealERC20', [stranger, holder, '0x1']);
      assert.deepEqual(none.error, { code: -32603, message: 'Unable to set ERC20 balance, no slot found' }, url);
      const noneA = await rpc(url, 'anvil_setERC20Allowance', [stranger, holder, spender, '0x1']);
      assert.equal(noneA.error?.message, 'Unable to set ERC20 allowance, no slot found', url);
    }
    assert.equal((await rpc(node.http, 'anvil_dealERC20', [stranger, holder])).error?.code, -32602);
  });
});
