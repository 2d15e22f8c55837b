// Block execution on Kestrel's engine against the ethereumjs path it replaced (runTx on a MerkleStateManager, the
// unburned base fee credited to the coinbase afterwards), block after block on the same pre-state: the same
// receipts, rejections, state root and the same store entries reachable from that root.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createBlock } from '@ethereumjs/block';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import {
  createAccessList2930Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  createTxFromRLP,
  type TypedTransaction,
} from '@ethereumjs/tx';
import { encodeTx } from '../../primitives/tx/encode.ts';
import { execTxOf } from './execTx.testing.ts';
import { Address, createAccount, createContractAddress } from '@ethereumjs/util';
import { createVM, runTx, type VM } from '@ethereumjs/vm';
import { Interface } from 'ethers';
import { initEngine, WorldState } from '../../evm/index.ts';
import { TxRejectedError } from '../../errors/index.ts';
import { deriveAccounts, DEV_MNEMONIC } from '../../keys/devAccounts.ts';
import { bytesToHex, hexToBytes } from '../../primitives/hex.ts';
import { EMPTY_TRIE_ROOT } from '../../primitives/hash.ts';
import { KvStore } from '../../store/kv.ts';
import type { ReceiptRecord } from '../../store/records.ts';
import { contextHeader, type BlockContext } from '../block.ts';
import { StateDb } from '../state/stateDb.ts';
import { walkState } from '../state/walk.ts';
import { compileSource } from '../../../test/helpers/solc.ts';
import { ArchiveStateReader, type CarriedTries } from './archiveReader.ts';
import { blockHashSource } from '../../../test/helpers/blockHashes.ts';
import { createChainCommon } from './common.ts';
import { blockEnvOf } from './engineTx.ts';
import { rejectReasonOf } from '../../../test/helpers/rejectReason.ts';
import { effectiveGasPrice, executeBlock, type BlockExecution, type ExecTx } from './executor.ts';
import { writeState, type WriteOptions } from './stateWrite.ts';
import { executionState } from '../../../test/helpers/ethereumjsState.ts';

const common = createChainCommon(9000n);
const GWEI = 10n ** 9n;
const dev = deriveAccounts(DEV_MNEMONIC, 5);
const poorKey = new Uint8Array(32).fill(0x42);
const coinbase = new Uint8Array(20).fill(0xee);
const r1 = new Uint8Array(20).fill(0x11);
const r2 = new Uint8Array(20).fill(0x22);
const r3 = new Uint8Array(20).fill(0x33);

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Token {
    mapping(address => uint256) public balanceOf;
    uint256[] public list;
    event Transfer(address indexed from, address indexed to, uint256 value);
    constructor(uint256 supply) { balanceOf[msg.sender] = supply; }
    function transfer(address to, uint256 v) external returns (bool) {
        require(balanceOf[msg.sender] >= v, "balance");
        balanceOf[msg.sender] -= v;
        balanceOf[to] += v;
        emit Transfer(msg.sender, to, v);
        return true;
    }
    function fill(uint256 n) external { for (uint256 i = 0; i < n; i++) list.push(i + 1); }
    function drain(uint256 n) external { for (uint256 i = 0; i < n; i++) list.pop(); }
    function hashes() external view returns (bytes32, bytes32) { return (blockhash(block.number - 1), bytes32(block.prevrandao)); }
}
contract Ephemeral { constructor() payable { selfdestruct(payable(msg.sender)); } }
`;

/** The ethereumjs block executor as it was before the engine (runTx per tx, then the unburned base fee). */
async function ethereumjsBlock(vm: VM, state: MerkleStateManager, ctx: BlockContext, txs: ExecTx[]) {
  const block = createBlock({ header: contextHeader(ctx, common) }, { common, setHardfork: false });
  const out: BlockExecution = { included: [], receipts: [], gasUsed: 0n, rejected: [] };
  let burned = 0n;
  for (const item of txs) {
    const tx = createTxFromRLP(encodeTx(item.tx), { common });
    if (out.gasUsed + tx.gasLimit > ctx.gasLimit) {
      out.rejected.push({
        hash: item.hash,
        error: new TxRejectedError('gasLimitAboveBlock', 'exceeds block gas limit'),
      });
      continue;
    }
    let r;
    try {
      r = await runTx(vm, { tx, block, blockGasUsed: out.gasUsed, skipHardForkValidation: true });
    } catch (e) {
      const message = (e as Error).message;
      out.rejected.push({ hash: item.hash, error: new TxRejectedError(rejectReasonOf(message), message) });
      continue;
    }
    out.gasUsed = r.receipt.cumulativeBlockGasUsed;
    burned += r.totalGasSpent * ctx.baseFeePerGas;
    const receipt: ReceiptRecord = {
      type: tx.type,
      status: r.execResult.exceptionError !== undefined ? 0 : 1,
      cumulativeGasUsed: out.gasUsed,
      gasUsed: r.totalGasSpent,
      logs: (r.receipt.logs ?? []).map(([address, topics, data]) => ({ address, topics, data })),
      bloom: r.bloom.bitvector,
      from: item.sender,
      effectiveGasPrice: effectiveGasPrice(item.tx, ctx.baseFeePerGas),
    };
    if (tx.to) receipt.to = tx.to.bytes;
    else receipt.contractAddress = createContractAddress(new Address(item.sender), tx.nonce).bytes;
    out.included.push(item);
    out.receipts.push(receipt);
  }
  if (burned > 0n) {
    const acc = (await state.getAccount(new Address(ctx.coinbase))) ?? createAccount({});
    acc.balance += burned;
    await state.putAccount(new Address(ctx.coinbase), acc);
  }
  return out;
}

/** Plain data for deepEqual (Buffers and Uint8Arrays as hex). */
function norm(v: unknown): unknown {
  if (v instanceof Uint8Array) return bytesToHex(v);
  if (Array.isArray(v)) return v.map(norm);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, norm(x)]));
  return v;
}

/** Every store entry reachable from `root`, as hex key → hex value. */
function reachable(root: Uint8Array, get: (k: Uint8Array) => Uint8Array | undefined): Map<string, string> {
  const out = new Map<string, string>();
  walkState(root, get, (k, v) => {
    const key = bytesToHex(k);
    if (out.has(key)) return false;
    out.set(key, bytesToHex(v));
    return true;
  });
  return out;
}

function item(tx: TypedTransaction): ExecTx {
  return execTxOf(tx);
}

describe('block execution on the engine', () => {
  let dir: string;
  let kv: KvStore;
  let state: StateDb;
  before(async () => {
    await initEngine();
    dir = mkdtempSync(join(tmpdir(), 'kestrel-exec-'));
    kv = await KvStore.open(dir);
    state = new StateDb(kv, common);
  });
  after(async () => {
    await kv.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives the receipts, rejections, root and reachable nodes of the ethereumjs executor', async () => {
    const { Token, Ephemeral } = compileSource(SOURCE, 'Exec.sol');
    const token = new Interface(Token!.abi);
    const db0 = state.bufferedDb();
    const genesis = executionState(state, new Uint8Array(0), db0);
    for (const a of dev) await genesis.putAccount(new Address(a.address), createAccount({ balance: 10n ** 22n }));
    let root = await genesis.getStateRoot();
    let carried: CarriedTries | undefined;
    await kv.write(db0.drain());

    const [alice, bob, carol, dave, erin] = dev.map((a) => a.privateKey) as [
      Uint8Array,
      Uint8Array,
      Uint8Array,
      Uint8Array,
      Uint8Array,
    ];
    const nonces = new Map<Uint8Array, bigint>();
    const next = (k: Uint8Array, n?: bigint) => {
      const v = n ?? nonces.get(k) ?? 0n;
      if (n === undefined) nonces.set(k, v + 1n);
      return v;
    };
    const fee = { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI };
    const call = (
      k: Uint8Array,
      to: Uint8Array | undefined,
      o: { data?: string; value?: bigint; gas?: bigint; nonce?: bigint } = {},
    ) =>
      item(
        createFeeMarket1559Tx(
          {
            nonce: next(k, o.nonce),
            to,
            value: o.value ?? 0n,
            data: o.data ? hexToBytes(o.data) : undefined,
            gasLimit: o.gas ?? 21_000n,
            ...fee,
          },
          { common },
        ).sign(k),
      );
    const tokenAddr = createContractAddress(new Address(dev[0]!.address), 0n).bytes;
    const blocks: ExecTx[][] = [
      [
        call(alice, undefined, { data: Token!.bytecode + token.encodeDeploy([10n ** 6n]).slice(2), gas: 1_000_000n }),
        call(bob, r1, { value: 10n ** 18n }),
        item(
          createLegacyTx(
            { nonce: next(carol), to: r2, value: 5n, gasLimit: 21_000n, gasPrice: 2n * GWEI },
            { common },
          ).sign(carol),
        ),
        item(
          createAccessList2930Tx(
            {
              nonce: next(dave),
              to: r1,
              value: 7n,
              gasLimit: 30_000n,
              gasPrice: 2n * GWEI,
              accessList: [[r1, [new Uint8Array(32).fill(1)]]],
            },
            { common },
          ).sign(dave),
        ),
        call(dave, r1, { nonce: 9n }), // nonce too high
        call(poorKey, r1, { value: 1n }), // no funds
        call(bob, r1, { gas: 20_000n, nonce: 1n }), // intrinsic gas
        call(erin, r3, { value: 0n }), // touches an empty account: EIP-161 removes it again
      ],
      [
        call(alice, tokenAddr, {
          data: token.encodeFunctionData('transfer', [bytesToHex(dev[1]!.address), 10n]),
          gas: 100_000n,
        }),
        call(alice, tokenAddr, {
          data: token.encodeFunctionData('transfer', [bytesToHex(dev[2]!.address), 10n ** 30n]),
          gas: 100_000n,
        }), // reverts
        call(alice, tokenAddr, { data: token.encodeFunctionData('fill', [20n]), gas: 2_000_000n }),
        call(bob, undefined, { data: Ephemeral!.bytecode, value: 3n, gas: 200_000n }), // created and destroyed
        call(carol, tokenAddr, { data: token.encodeFunctionData('hashes'), gas: 60_000n }),
        call(alice, r1, { nonce: 0n }), // nonce too low
      ],
      [
        call(alice, tokenAddr, { data: token.encodeFunctionData('drain', [15n]), gas: 2_000_000n }), // slots deleted
        call(alice, tokenAddr, { data: token.encodeFunctionData('fill', [3n]), gas: 2_000_000n }),
        call(bob, dev[1]!.address, { value: 1n }), // to itself
        call(dave, r2, { gas: 29_900_000n }), // no longer fits in the block
        call(erin, tokenAddr, { data: '0xdeadbeef', gas: 50_000n }), // no such function: reverts
      ],
    ];
    const seen = { rejected: new Set<string>(), reverted: 0, logs: 0, created: 0 };
    let parentHash = new Uint8Array(32).fill(1);
    const hashes = new Map<bigint, Uint8Array>([[0n, parentHash]]);
    for (const [i, txs] of blocks.entries()) {
      const ctx: BlockContext = {
        number: BigInt(i + 1),
        parentHash,
        timestamp: 1_700_000_000n + BigInt(i),
        coinbase,
        gasLimit: 30_000_000n,
        baseFeePerGas: GWEI,
        mixHash: new Uint8Array(32).fill(i + 7),
      };
      const hashOf = (n: bigint) => hashes.get(n);

      const oldDb = state.bufferedDb();
      const st = executionState(state, root, oldDb);
      const vm = await createVM({
        common: createChainCommon(9000n),
        stateManager: st,
        blockchain: blockHashSource(hashOf),
      });
      await st.checkpoint();
      const old = await ethereumjsBlock(vm, st, ctx, txs);
      await st.commit();
      const oldRoot = await st.getStateRoot();

      const newDb = state.bufferedDb();
      const readNode = (k: Uint8Array) => newDb.getSync(k);
      // As the app runs blocks: each reader starts from the tries the previous block decoded and wrote.
      const reader = new ArchiveStateReader(root, readNode, hashOf, undefined, carried);
      const exec = executeBlock(new WorldState(reader), ctx, blockEnvOf(ctx, 9000n), txs, 'Prague');
      // As the app writes: forking the tries the reader loaded during execution.
      const tries: NonNullable<WriteOptions['tries']> = { storage: [] };
      const storageRoots: Uint8Array[] = [];
      const put = (k: Uint8Array, v: Uint8Array) => newDb.putSync(k, v);
      const newRoot = writeState(root, exec.diff, readNode, put, { loaded: reader, tries, storageRoots });
      // The next block reads the accounts and slots this one touched from the carried flat state.
      carried = reader.carry(newRoot, tries.accounts!, tries.storage, 0, exec.diff, storageRoots);
      // The writer on its own (every node read from the store) writes the same state.
      const aloneDb = state.bufferedDb();
      const alone = writeState(
        root,
        exec.diff,
        (k) => aloneDb.getSync(k),
        (k, v) => aloneDb.putSync(k, v),
      );
      assert.equal(bytesToHex(alone), bytesToHex(newRoot), `block ${i + 1} state root (writer alone)`);
      aloneDb.discard();

      assert.deepEqual(norm(exec.receipts), norm(old.receipts), `block ${i + 1} receipts`);
      assert.equal(exec.gasUsed, old.gasUsed);
      assert.deepEqual(
        exec.included.map((t) => bytesToHex(t.hash)),
        old.included.map((t) => bytesToHex(t.hash)),
      );
      assert.deepEqual(
        exec.rejected.map((r) => [bytesToHex(r.hash), r.error.reason]),
        old.rejected.map((r) => [bytesToHex(r.hash), r.error.reason]),
      );
      assert.equal(bytesToHex(newRoot), bytesToHex(oldRoot), `block ${i + 1} state root`);
      assert.deepEqual(
        reachable(newRoot, readNode),
        reachable(oldRoot, (k) => oldDb.getSync(k)),
      );
      for (const r of exec.rejected) seen.rejected.add(r.error.message.split(':')[0]!);
      for (const r of exec.receipts) {
        if (r.status === 0) seen.reverted++;
        seen.logs += r.logs.length;
        if (r.contractAddress) seen.created++;
      }
      await kv.write(newDb.drain());
      oldDb.discard();
      root = newRoot;
      parentHash = new Uint8Array(32).fill(i + 2);
      hashes.set(ctx.number, parentHash);
    }
    // The mix did what it claims: rejections of every kind (in geth's words), reverts, logs, creations.
    assert.deepEqual([...seen.rejected].sort(), [
      'exceeds block gas limit',
      'insufficient funds for gas * price + value',
      'intrinsic gas too low',
      'nonce too high',
      'nonce too low',
    ]);
    assert.deepEqual([seen.reverted, seen.logs, seen.created], [2, 1, 2]);
    assert.notEqual(bytesToHex(root), bytesToHex(EMPTY_TRIE_ROOT));
  });
});
