// --print-traces (issue 29 item 6): each mined tx's call trace and its Solidity console.log output (Hardhat's
// console.sol calls) appear in the node's log; anvil_setLoggingEnabled(false) mutes them until it is turned on again.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { Contract, ContractFactory, JsonRpcProvider, Wallet, type InterfaceAbi } from 'ethers';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { type KestrelNode, printLogsOnFailure, rpcResult, sleep, startNode, waitFor } from '../helpers/node.ts';
import { compileSource } from '../helpers/solc.ts';

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
library console {
    address constant CONSOLE = 0x000000000000000000636F6e736F6c652e6c6f67;
    function log(string memory p0, uint256 p1) internal view {
        (bool ok, ) = CONSOLE.staticcall(abi.encodeWithSignature("log(string,uint256)", p0, p1));
        ok;
    }
    function log(string memory p0, address p1, bool p2) internal view {
        (bool ok, ) = CONSOLE.staticcall(abi.encodeWithSignature("log(string,address,bool)", p0, p1, p2));
        ok;
    }
}
contract Greeter {
    uint256 public count;
    function hello(uint256 n) external {
        count += n;
        console.log("hello %s", n);
        console.log("from", msg.sender, true);
    }
}
`;

describe('--print-traces and anvil_setLoggingEnabled', () => {
  let node: KestrelNode | undefined;
  let greeter: Contract;
  afterEach(printLogsOnFailure(() => node));

  before(async () => {
    node = await startNode({ args: ['--print-traces'] });
    const provider = new JsonRpcProvider(node.http, undefined, { staticNetwork: true, cacheTimeout: -1 });
    const owner = new Wallet(DEV_ACCOUNTS[0]!.privateKey, provider);
    const c = compileSource(SOURCE, 'Greeter.sol').Greeter!;
    const d = await new ContractFactory(c.abi as InterfaceAbi, c.bytecode, owner).deploy();
    await d.waitForDeployment();
    greeter = new Contract(await d.getAddress(), c.abi as InterfaceAbi, owner);
  });

  after(async () => {
    await node?.dispose();
  });

  const hello = async (n: number): Promise<string> => {
    const r = await (await greeter.getFunction('hello')(n)).wait();
    return r!.hash;
  };

  it("prints each mined tx's console.log output and call trace", async () => {
    const hash = await hello(7);
    const logs = await waitFor('the printed trace', async () =>
      node!.logs().includes('hello 7') ? node!.logs() : null,
    );
    assert.match(logs, new RegExp(`Transaction: ${hash}`));
    const from = DEV_ACCOUNTS[0]!.address.toLowerCase();
    assert.match(logs, new RegExp(`from ${from} true`));
    // The trace: the call into the Greeter and its two STATICCALLs to the console address.
    const to = (await greeter.getAddress()).toLowerCase();
    assert.match(logs, new RegExp(`\\[\\d+\\] CALL ${to}::0x[0-9a-f]{8}`));
    assert.equal(logs.match(/STATICCALL 0x000000000000000000636f6e736f6c652e6c6f67/g)?.length, 2);
  });

  it('anvil_setLoggingEnabled(false) mutes the output until it is turned on again', async () => {
    assert.equal(await rpcResult(node!.http, 'anvil_setLoggingEnabled', [false]), null);
    await hello(8);
    await sleep(1000);
    assert.ok(!node!.logs().includes('hello 8'));
    assert.equal(await rpcResult(node!.http, 'anvil_setLoggingEnabled', [true]), null);
    await hello(9);
    await waitFor('the printed trace', async () => (node!.logs().includes('hello 9') ? true : null));
  });
});
