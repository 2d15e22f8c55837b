// A small archived state for eth_simulateV1's differential test and bench: three funded senders, an EOA, and the
// Sim contract (storage writes, events, value forwarding, creations, self-destructs, reverts, precompile calls,
// block environment reads) with preset slots, in an in-memory trie store that both Kestrel's engine (through an
// ArchiveStateReader) and the ethereumjs oracle (through a MerkleStateManager) read at the same root.
import { createBlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { Address, createAccount, MapDB, ValueEncoding } from '@ethereumjs/util';
import { Interface } from 'ethers';
import { ArchiveStateReader } from '../../src/app/evm/archiveReader.ts';
import { createChainCommon, createFastKeccak, createSharedCommon } from '../../src/app/evm/common.ts';
import { simulate, type SimBlockResult, type SimulateOptions } from '../../src/app/evm/simulate/simulator.ts';
import { keccak256 } from '../../src/primitives/keccak.ts';
import type { BlockRecord } from '../../src/store/records.ts';
import { compileSource } from './solc.ts';
import { simulateOnEthereumjs } from './simulateOracle.ts';

const SOURCE = `
pragma solidity ^0.8.20;
contract Child {
  uint256 public v;
  event Born(uint256 v);
  constructor(uint256 _v) payable { v = _v; emit Born(_v); }
  function die(address payable to) external { selfdestruct(to); }
}
contract Sim {
  uint256 public x;
  mapping(uint256 => uint256) public m;
  event Set(uint256 indexed k, uint256 v, address from);
  function set(uint256 k, uint256 v) external payable { m[k] = v; emit Set(k, v, msg.sender); }
  function clear(uint256 k) external { delete m[k]; }
  function env() external view returns (uint256, uint256, uint256, address, bytes32, uint256, uint256, uint256) {
    return (block.number, block.timestamp, block.basefee, block.coinbase, blockhash(block.number - 1),
      block.prevrandao, block.gaslimit, block.blobbasefee);
  }
  function forward(address payable to) external payable {
    (bool ok, ) = to.call{value: msg.value}("");
    require(ok, "fwd");
  }
  function fail(uint256 code) external pure returns (uint256) {
    if (code == 1) revert("nope");
    if (code == 2) assembly { invalid() }
    uint256[] memory a = new uint256[](1);
    return a[code];
  }
  function burn(uint256 n) external { for (uint256 i; i < n; i++) x = uint256(keccak256(abi.encode(x, i))); }
  function kill(address payable to) external { selfdestruct(to); }
  function make(uint256 v) external payable returns (address) { return address(new Child{value: msg.value}(v)); }
  function hash(bytes calldata d) external view returns (bytes32) { return sha256(d); }
  function bal(address a) external view returns (uint256) { return a.balance; }
  function inner(address t, bytes calldata d) external payable returns (bytes memory) {
    (bool ok, bytes memory r) = t.call{value: msg.value}(d);
    if (!ok) { emit Set(0, 0, msg.sender); }
    return r;
  }
}
`;

export const hex = (b: Uint8Array): string => '0x' + Buffer.from(b).toString('hex');
export const bytes = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));
export const addr = (i: number): Uint8Array => new Uint8Array(20).fill(i);
/** A precompile's address (0x…0n). */
export const precompile = (n: number): Uint8Array => new Uint8Array(20).map((_, j) => (j === 19 ? n : 0));
export const word = (n: bigint): Uint8Array => bytes(n.toString(16).padStart(64, '0'));

export const SIM = addr(0x51);
export const SENDERS = [addr(0xa1), addr(0xa2), addr(0xa3)];
export const EOA = addr(0xb1);
export const COINBASE = addr(0xc1);
export const ETH = 10n ** 18n;
export const BASE_NUMBER = 20n;

/** The fixture: its contract's ABI and runtime code, and eth_simulateV1 on either engine over its state. */
export interface SimulateFixture {
  sim: Interface;
  simCode: Uint8Array;
  /** Kestrel's simulator (a fresh reader of the base root each time, as a new head would have). */
  engine(opts: SimulateOptions, gasCap?: bigint, timeoutMs?: number): Promise<SimBlockResult[]>;
  /** The ethereumjs simulator on a fresh state manager at the base root. */
  oracle(opts: SimulateOptions, gasCap?: bigint): Promise<SimBlockResult[]>;
}

/** Builds the state and the base block (number 20, base fee 7 gwei, gas limit 30M). */
export async function openSimulateFixture(): Promise<SimulateFixture> {
  const keccak = await createFastKeccak();
  const common: Common = createSharedCommon(9000n, keccak);
  const vmCommon = (): Common => createChainCommon(9000n, keccak);
  const c = compileSource(SOURCE, 'Sim.sol')['Sim']!;
  const sim = new Interface(c.abi);
  const simCode = bytes(c.deployedBytecode);
  const db = new MapDB<string, Uint8Array | string>();
  const hashOf = (n: bigint): Uint8Array | undefined => (n <= BASE_NUMBER ? keccak256(word(n + 1000n)) : undefined);
  const readNode = (k: Uint8Array): Uint8Array | undefined => {
    const v = db._database.get(Buffer.from(k).toString('hex'));
    return typeof v === 'string' ? bytes(v) : v;
  };
  const trieAt = (root?: Uint8Array): MerklePatriciaTrie =>
    new MerklePatriciaTrie({ db, root, useKeyHashing: true, valueEncoding: ValueEncoding.Bytes, common });

  const sm = new MerkleStateManager({ common, trie: trieAt() });
  for (const s of SENDERS) await sm.putAccount(new Address(s), createAccount({ nonce: 3n, balance: 1000n * ETH }));
  await sm.putAccount(new Address(EOA), createAccount({ nonce: 0n, balance: 5n * ETH }));
  const simAddress = new Address(SIM);
  await sm.putAccount(simAddress, createAccount({ nonce: 1n, balance: 2n * ETH }));
  await sm.putCode(simAddress, simCode);
  for (let k = 1n; k <= 4n; k++) await sm.putStorage(simAddress, word(k + 1n), word(k * 11n));
  await sm.flush();
  const root = await sm.getStateRoot();
  const header = createBlockHeader(
    {
      number: BASE_NUMBER,
      timestamp: 1_700_000_000n,
      gasLimit: 30_000_000n,
      baseFeePerGas: 7_000_000_000n,
      stateRoot: root,
      coinbase: COINBASE,
      parentHash: hashOf(BASE_NUMBER - 1n)!,
    },
    { common, setHardfork: false },
  );
  const base: BlockRecord = {
    header,
    hash: header.hash(),
    number: BASE_NUMBER,
    txs: [],
    txHashes: [],
    senders: [],
    size: 0n,
  };

  return {
    sim,
    simCode,
    engine: (opts, gasCap = 200_000_000n, timeoutMs = 0) =>
      simulate(
        { common, reader: new ArchiveStateReader(root, readNode, hashOf), readNode, hashOf, gasCap, timeoutMs },
        opts,
        base,
      ),
    oracle: (opts, gasCap = 200_000_000n) =>
      simulateOnEthereumjs(
        {
          common,
          vmCommon,
          state: new MerkleStateManager({ common, trie: trieAt(root), caches: new Caches() }),
          hashOf,
          gasCap,
        },
        opts,
        base,
      ),
  };
}
