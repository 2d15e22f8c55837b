// The transactions the trace_ comparison sends to Kestrel and to Anvil alike: from the same dev account at the same
// nonces, so every contract lands at the same address on both chains.
import { Contract, ContractFactory, getCreate2Address, JsonRpcProvider, keccak256, Wallet } from 'ethers';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { compileSource } from '../helpers/solc.ts';

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Child {
    uint256 public v;
    constructor() payable {}
    function set(uint256 x) external { v = x; }
    function fail() external pure { revert("nope"); }
    function kill(address payable to) external { selfdestruct(to); }
}
contract Parent {
    Child public c;
    constructor() payable {}
    function make() external returns (address) { c = new Child(); return address(c); }
    function make2(bytes32 salt) external payable returns (address) {
        return address(new Child{salt: salt, value: msg.value}());
    }
    function nested(uint256 x) external {
        c.set(x);
        try c.fail() {} catch {}
        c.v();
    }
    function boom() external { c.fail(); }
    function destroy(address k) external { Child(k).kill(payable(msg.sender)); }
}
`;

/** The hashes of the scenario's transactions and the addresses it made. */
export interface Scenario {
  deploy: string;
  make: string;
  nested: string;
  boom: string;
  transfer: string;
  make2: string;
  destroy: string;
  parent: string;
  child: string;
  child2: string;
}

/** Sends the scenario to the node at `url`, one mined transaction after another. */
export async function runScenario(url: string): Promise<Scenario> {
  const { Parent, Child } = compileSource(SOURCE, 'Traces.sol');
  const provider = new JsonRpcProvider(url, undefined, { staticNetwork: true, cacheTimeout: -1 });
  const wallet = new Wallet(DEV_ACCOUNTS[3]!.privateKey, provider);
  const gas = { gasLimit: 1_000_000n };
  const factory = new ContractFactory(Parent!.abi, Parent!.bytecode, wallet);
  const parent = (await factory.deploy({ value: 1000n, ...gas })) as Contract;
  await parent.waitForDeployment();
  const mined = async (p: Promise<{ hash: string; wait(): Promise<unknown> }>) => {
    const tx = await p;
    await tx.wait().catch(() => undefined);
    return tx.hash;
  };
  const make = await mined(parent.make!(gas));
  const child = (await parent.c!()) as string;
  const nested = await mined(parent.nested!(7n, gas));
  const boom = await mined(parent.boom!(gas));
  const transfer = await mined(wallet.sendTransaction({ to: DEV_ACCOUNTS[4]!.address, value: 12345n, ...gas }));
  const salt = '0x' + '11'.repeat(32);
  const make2 = await mined(parent.make2!(salt, { value: 77n, ...gas }));
  const child2 = getCreate2Address(await parent.getAddress(), salt, keccak256(Child!.bytecode));
  const destroy = await mined(parent.destroy!(child, gas));
  return {
    deploy: parent.deploymentTransaction()!.hash,
    make,
    nested,
    boom,
    transfer,
    make2,
    destroy,
    parent: await parent.getAddress(),
    child,
    child2,
  };
}
