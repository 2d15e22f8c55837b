// The two contracts the bench deploys, compiled once with solc (evmVersion shanghai: the newest fork Ganache 7.9
// runs; Kestrel, Anvil and Hardhat run later forks and accept it), and hand-rolled ABI encoding for the few calls.
import { keccak_256 } from '@noble/hashes/sha3.js';
import solc from 'solc';
import { toHex } from './tx.ts';

/** The EVM version the bench compiles for; every node in the bench supports it. */
export const EVM_VERSION = 'shanghai';

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A minimal ERC20: every holder passed to the constructor starts with the same supply.
contract BenchToken {
    mapping(address => uint256) public balanceOf;
    event Transfer(address indexed from, address indexed to, uint256 value);

    constructor(address[] memory holders, uint256 each) {
        for (uint256 i = 0; i < holders.length; i++) {
            balanceOf[holders[i]] = each;
            emit Transfer(address(0), holders[i], each);
        }
    }

    function transfer(address to, uint256 value) external returns (bool) {
        uint256 b = balanceOf[msg.sender];
        require(b >= value, "balance");
        unchecked { balanceOf[msg.sender] = b - value; }
        balanceOf[to] += value;
        emit Transfer(msg.sender, to, value);
        return true;
    }
}

/// Emits ERC20-shaped Transfer events in bulk, so a log index can be filled quickly.
contract LogSource {
    event Transfer(address indexed from, address indexed to, uint256 value);

    /// Emits n events; event k goes to recipient 0x1000 + (start + k) % 100.
    function emitMany(uint256 n, uint256 start) external {
        for (uint256 k = 0; k < n; k++) {
            emit Transfer(msg.sender, address(uint160(0x1000 + (start + k) % 100)), k);
        }
    }
}
`;

/** Creation bytecode of the bench contracts. */
export interface BenchContracts {
  token: string;
  logSource: string;
}

/** Compiles the bench contracts; throws on any compiler error. */
export function compileContracts(): BenchContracts {
  const input = {
    language: 'Solidity',
    sources: { 'Bench.sol': { content: SOURCE } },
    settings: {
      evmVersion: EVM_VERSION,
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['evm.bytecode.object'] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: Array<{ severity: string; formattedMessage: string }>;
    contracts?: Record<string, Record<string, { evm: { bytecode: { object: string } } }>>;
  };
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  const c = out.contracts?.['Bench.sol'];
  if (!c?.BenchToken || !c.LogSource) throw new Error('solc output lacks BenchToken or LogSource');
  return { token: `0x${c.BenchToken.evm.bytecode.object}`, logSource: `0x${c.LogSource.evm.bytecode.object}` };
}

/** keccak256 of a UTF-8 string, 0x hex. */
export function keccakText(s: string): string {
  return toHex(keccak_256(new TextEncoder().encode(s)));
}

/** topic0 of Transfer(address,address,uint256). */
export const TRANSFER_TOPIC = keccakText('Transfer(address,address,uint256)');

/** One ABI word (32 bytes, hex without 0x) of an address or unsigned integer. */
export function word(v: string | bigint | number): string {
  const hex = typeof v === 'string' ? v.toLowerCase().replace(/^0x/, '') : BigInt(v).toString(16);
  if (hex.length > 64) throw new Error(`ABI word overflow: ${v}`);
  return hex.padStart(64, '0');
}

const selector = (sig: string): string => keccakText(sig).slice(0, 10);

/** Constructor arguments of BenchToken(holders, each), appended to its creation code. */
export function tokenConstructorArgs(holders: string[], each: bigint): string {
  return word(0x40) + word(each) + word(holders.length) + holders.map((h) => word(h)).join('');
}

/** Calldata of balanceOf(owner). */
export function balanceOfData(owner: string): string {
  return selector('balanceOf(address)') + word(owner);
}

/** Calldata of transfer(to, value). */
export function transferData(to: string, value: bigint): string {
  return selector('transfer(address,uint256)') + word(to) + word(value);
}

/** Calldata of emitMany(n, start). */
export function emitManyData(n: number, start: number): string {
  return selector('emitMany(uint256,uint256)') + word(n) + word(start);
}

/** The recipient address LogSource uses for index i (0..99), as a 32-byte topic. */
export function recipientTopic(i: number): string {
  return `0x${word(0x1000 + i)}`;
}

/** A deterministic recipient address for plain and ERC20 transfers (fresh accounts, same on every node). */
export function recipientAddress(i: number): string {
  return `0x${(0xbe000000 + i).toString(16).padStart(40, '0')}`;
}
