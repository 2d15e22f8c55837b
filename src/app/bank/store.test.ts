// The bank root (a plain Merkle-Patricia trie over address ‖ denom → amount) against @ethereumjs/mpt, the trie it
// was built with before: denoms that prefix each other (branch values), repeats, zero amounts, no entries.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { bigintToBytes, bytesToHex, concatBytes } from '../../primitives/hex.ts';
import type { Genesis } from '../genesis.ts';
import { bankRoot } from './store.ts';

async function ethjsRoot(bank: Genesis['bank']): Promise<string> {
  const trie = new MerklePatriciaTrie();
  for (const b of bank) {
    for (const c of b.coins) {
      await trie.put(concatBytes(b.address, new TextEncoder().encode(c.denom)), bigintToBytes(c.amount));
    }
  }
  return bytesToHex(trie.root());
}

const addr = (i: number) => new Uint8Array(20).fill(i);

describe('bankRoot', () => {
  it('equals the root of the same puts into an ethereumjs trie', async () => {
    const cases: Genesis['bank'][] = [
      [],
      [{ address: addr(1), coins: [{ denom: 'stake', amount: 10n }] }],
      Array.from({ length: 12 }, (_, i) => ({
        address: addr(i + 1),
        coins: [
          { denom: 'uatom', amount: BigInt(i + 1) * 1000n },
          { denom: 'uatomx', amount: 7n },
          { denom: 'ibc/27394FB092D2ECCD56123C74F36E4C1F926001CEADA9CA97EA622B25F41E5EB2', amount: 10n ** 30n },
        ],
      })),
      [
        { address: addr(1), coins: [{ denom: 'aaa', amount: 1n }] },
        { address: addr(1), coins: [{ denom: 'aaa', amount: 2n }] },
        { address: addr(2), coins: [{ denom: 'bbb', amount: 3n }] },
        { address: addr(2), coins: [{ denom: 'bbb', amount: 0n }] },
        { address: addr(3), coins: [{ denom: 'ccc', amount: 0n }] },
      ],
    ];
    for (const bank of cases) assert.equal(bytesToHex(bankRoot(bank)), await ethjsRoot(bank));
  });
});
