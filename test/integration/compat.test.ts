// `--json-rpc.compat ethermint` reproduces the values the reference Ethermint node returned (SPEC §2.5/§2.6);
// the default returns standard post-merge values that hash and that clients can use.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { Interface } from 'ethers';
import { nonCoinbaseAccounts } from '../helpers/accounts.ts';
import { EMPTY_UNCLES_HASH, ZERO_ADDRESS, computeBlockHash } from '../helpers/chain.ts';
import { type KestrelNode, printLogsOnFailure, rpcResult, startNode } from '../helpers/node.ts';
import { assertConforms, conforms } from '../helpers/openrpc.ts';
import { testContracts } from '../helpers/solc.ts';
import { sendTx } from '../helpers/tx.ts';

const RECIPIENT = '0x00000000000000000000000000000000000b0b00';

interface Observed {
  block: any; // block with the transfer, hashes
  fullBlock: any; // same block, full txs
  byHash: any;
  genesis: any;
  transferReceipt: any;
  deployReceipt: any;
  coinbase: string;
}

async function exercise(node: KestrelNode): Promise<Observed> {
  const url = node.http;
  const coinbase = await rpcResult<string>(url, 'eth_coinbase');
  const sender = nonCoinbaseAccounts(coinbase)[0]!;
  const { Store } = testContracts();
  const transfer = await sendTx(url, sender.privateKey, { to: RECIPIENT, value: 1n });
  const deploy = await sendTx(url, sender.privateKey, {
    to: null,
    data: Store.bytecode + new Interface(Store.abi).encodeDeploy([1n, 'compat']).slice(2),
    gas: 2_000_000n,
  });
  const n = transfer.receipt.blockNumber;
  const block = await rpcResult(url, 'eth_getBlockByNumber', [n, false]);
  return {
    block,
    fullBlock: await rpcResult(url, 'eth_getBlockByNumber', [n, true]),
    byHash: await rpcResult(url, 'eth_getBlockByHash', [block.hash, false]),
    genesis: await rpcResult(url, 'eth_getBlockByNumber', ['0x0', false]),
    transferReceipt: await rpcResult(url, 'eth_getTransactionReceipt', [transfer.hash]),
    deployReceipt: await rpcResult(url, 'eth_getTransactionReceipt', [deploy.hash]),
    coinbase,
  };
}

describe('observed-value compatibility', { timeout: 120_000 }, () => {
  let standard: KestrelNode;
  let ethermint: KestrelNode;
  let std: Observed;
  let em: Observed;

  before(async () => {
    [standard, ethermint] = await Promise.all([startNode(), startNode({ args: ['--json-rpc.compat', 'ethermint'] })]);
    [std, em] = await Promise.all([exercise(standard), exercise(ethermint)]);
  });
  afterEach(printLogsOnFailure(() => [standard, ethermint]));
  after(async () => {
    await Promise.all([standard?.dispose(), ethermint?.dispose()]);
  });

  it('default: standard post-merge block values, schema-conformant, hash recomputes', () => {
    for (const b of [std.block, std.fullBlock, std.byHash, std.genesis]) {
      assert.equal(b.nonce, '0x0000000000000000');
      assert.equal(b.sha3Uncles, EMPTY_UNCLES_HASH);
      assert.equal(b.difficulty, '0x0');
      if (b !== std.genesis) assert.equal(b.miner.toLowerCase(), std.coinbase.toLowerCase(), 'miner is the etherbase');
      assert.match(b.miner, /^0x[0-9a-fA-F]{40}$/);
      if (b.totalDifficulty !== undefined) assert.match(b.totalDifficulty, /^0x(0|[1-9a-f][0-9a-f]*)$/);
      assert.deepEqual(b.uncles, []);
      assert.equal(computeBlockHash(b), b.hash);
    }
    // Full shapes (with transaction objects) are covered by conformance.test.ts.
    for (const b of [std.block, std.byHash, std.genesis]) assertConforms('eth_getBlockByNumber', b);
  });

  it('default: receipt contractAddress is null when none, the address on creation', () => {
    assert.equal(std.transferReceipt.contractAddress, null);
    assert.match(std.deployReceipt.contractAddress, /^0x[0-9a-fA-F]{40}$/);
    assert.notEqual(std.deployReceipt.contractAddress, ZERO_ADDRESS);
    assertConforms('eth_getTransactionReceipt', std.transferReceipt);
    assertConforms('eth_getTransactionReceipt', std.deployReceipt);
  });

  it('ethermint: nonce, sha3Uncles, difficulty, totalDifficulty null; miner zero', () => {
    for (const b of [em.block, em.fullBlock, em.byHash, em.genesis]) {
      assert.ok('nonce' in b && b.nonce === null, `nonce ${JSON.stringify(b.nonce)}`);
      assert.ok('sha3Uncles' in b && b.sha3Uncles === null, `sha3Uncles ${JSON.stringify(b.sha3Uncles)}`);
      assert.ok('difficulty' in b && b.difficulty === null, `difficulty ${JSON.stringify(b.difficulty)}`);
      assert.ok(
        'totalDifficulty' in b && b.totalDifficulty === null,
        `totalDifficulty ${JSON.stringify(b.totalDifficulty)}`,
      );
      assert.equal(b.miner, ZERO_ADDRESS);
      assert.equal(conforms('eth_getBlockByNumber', b), false, 'the observed shape is not the standard one');
    }
  });

  it('ethermint: receipt contractAddress is the zero address when none, the address on creation', () => {
    assert.equal(em.transferReceipt.contractAddress, ZERO_ADDRESS);
    assert.match(em.deployReceipt.contractAddress, /^0x[0-9a-fA-F]{40}$/);
    assert.notEqual(em.deployReceipt.contractAddress, ZERO_ADDRESS);
  });

  it('both: every other field has the same shape and the same meaning', () => {
    const keys = (o: object) =>
      Object.keys(o)
        .filter((k) => k !== 'totalDifficulty')
        .sort();
    assert.deepEqual(keys(em.block), keys(std.block), 'same block fields');
    assert.deepEqual(keys(em.transferReceipt), keys(std.transferReceipt), 'same receipt fields');
    for (const b of [em.block, std.block]) {
      assert.match(b.hash, /^0x[0-9a-f]{64}$/);
      assert.match(b.parentHash, /^0x[0-9a-f]{64}$/);
      assert.match(b.stateRoot, /^0x[0-9a-f]{64}$/);
      assert.match(b.transactionsRoot, /^0x[0-9a-f]{64}$/);
      assert.match(b.logsBloom, /^0x[0-9a-f]{512}$/);
      assert.equal(b.number, '0x2', 'the first tx lands after block 1, sealed at genesis time');
    }
    // The compat switch changes the JSON only: the same tx and receipt fields otherwise.
    for (const k of ['status', 'gasUsed', 'cumulativeGasUsed', 'type', 'logs', 'transactionIndex', 'to']) {
      assert.deepEqual(em.transferReceipt[k], std.transferReceipt[k], `receipt.${k}`);
    }
    assert.equal(em.fullBlock.transactions[0].hash, em.block.transactions[0]);
  });
});
