// Self-test of the independent commitment recomputation in chain.ts, checked against @ethereumjs
// (a different implementation) so that a wrong helper cannot make the integration tests pass or fail.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createBlockHeader } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, intToBytes } from '@ethereumjs/util';
import { Wallet, keccak256, randomBytes } from 'ethers';
import { EMPTY_TRIE_ROOT, computeBlockHash, orderedTrieRoot, rawTransaction } from './chain.ts';

describe('chain commitment helpers', () => {
  it('orderedTrieRoot matches @ethereumjs/mpt for 0..300 entries of mixed sizes', async () => {
    assert.equal(orderedTrieRoot([]), EMPTY_TRIE_ROOT);
    for (const n of [1, 2, 3, 16, 17, 127, 128, 129, 300]) {
      const values = Array.from({ length: n }, (_, i) => randomBytes(i % 3 === 0 ? 5 : 40 + (i % 90)));
      const trie = new MerklePatriciaTrie();
      for (let i = 0; i < n; i++) await trie.put(RLP.encode(i === 0 ? new Uint8Array(0) : intToBytes(i)), values[i]!);
      assert.equal(orderedTrieRoot(values), bytesToHex(trie.root()), `n=${n}`);
    }
  });

  it('computeBlockHash matches @ethereumjs for a Prague header', () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
    const h = createBlockHeader(
      {
        number: 5n,
        gasLimit: 30_000_000n,
        gasUsed: 21_000n,
        timestamp: 1_700_000_000n,
        baseFeePerGas: 7n,
        coinbase: '0x00000000000000000000000000000000000000aa',
        extraData: '0x6b657374',
        parentHash: keccak256('0x01') as `0x${string}`,
        stateRoot: keccak256('0x02') as `0x${string}`,
      },
      { common },
    );
    const json = h.toJSON() as Record<string, string>;
    const rpcLike = {
      ...json,
      miner: json.coinbase,
      sha3Uncles: json.uncleHash,
      transactionsRoot: json.transactionsTrie,
      receiptsRoot: json.receiptTrie,
      logsBloom: json.logsBloom,
    };
    assert.equal(computeBlockHash(rpcLike), bytesToHex(h.hash()));
    // A changed field must change the hash.
    assert.notEqual(computeBlockHash({ ...rpcLike, gasUsed: '0x5209' }), bytesToHex(h.hash()));
  });

  it('rawTransaction re-encodes an EIP-1559 tx to its hash', async () => {
    const w = Wallet.createRandom();
    const raw = await w.signTransaction({
      type: 2,
      chainId: 9000n,
      nonce: 3,
      to: '0x00000000000000000000000000000000000000bb',
      value: 5n,
      gasLimit: 21000n,
      maxFeePerGas: 10n,
      maxPriorityFeePerGas: 1n,
      data: '0x',
    });
    const { Transaction } = await import('ethers');
    const t = Transaction.from(raw);
    const rpcTx = {
      type: '0x2',
      chainId: '0x2328',
      nonce: '0x3',
      to: t.to,
      value: '0x5',
      gas: '0x5208',
      maxFeePerGas: '0xa',
      maxPriorityFeePerGas: '0x1',
      input: '0x',
      accessList: [],
      r: t.signature!.r,
      s: t.signature!.s,
      yParity: `0x${t.signature!.yParity}`,
      v: `0x${t.signature!.yParity}`,
      hash: t.hash,
    };
    assert.equal(rawTransaction(rpcTx), raw);
    assert.throws(() => rawTransaction({ ...rpcTx, value: '0x6' }), /hashes to/);
  });
});
