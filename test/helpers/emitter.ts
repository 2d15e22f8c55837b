// A contract that emits many (optionally large) logs per call, for the log, filter and subscription tests.
import { Interface } from 'ethers';
import { sendTx } from './tx.ts';
import { compileSource } from './solc.ts';

const SOURCE = `// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;
contract Emitter {
    event Ping(uint256 indexed i, address indexed from, bytes data);
    event Pong(uint256 indexed i);
    function emitMany(uint256 n, bytes calldata data) external {
        for (uint256 i = 0; i < n; i++) emit Ping(i, msg.sender, data);
    }
    function pong(uint256 i) external { emit Pong(i); }
}`;

/** The compiled Emitter and its ABI helper. */
export function emitterContract(): { abi: any[]; bytecode: `0x${string}`; iface: Interface } {
  const c = compileSource(SOURCE, 'Emitter.sol').Emitter!;
  return { abi: c.abi, bytecode: c.bytecode, iface: new Interface(c.abi) };
}

/** Deploys an Emitter from `key`; returns its address. */
export async function deployEmitter(url: string, key: string): Promise<string> {
  const { bytecode } = emitterContract();
  const { receipt } = await sendTx(url, key, { to: null, data: bytecode, gas: 1_000_000n });
  if (receipt.status !== '0x1') throw new Error('Emitter deployment failed');
  return receipt.contractAddress as string;
}

/** Calldata of emitMany(n, data). */
export function emitManyData(n: number, data = '0x'): string {
  return emitterContract().iface.encodeFunctionData('emitMany', [n, data]);
}

/** Calldata of pong(i). */
export function pongData(i: number): string {
  return emitterContract().iface.encodeFunctionData('pong', [i]);
}
