// eth_getProof against a real kestreld: account and storage proofs verified with @ethereumjs/mpt against the
// stateRoot eth_getBlockByNumber reports, at the head and at an older block; exclusion proofs for absent
// accounts and slots; the proven values equal eth_getBalance / eth_getTransactionCount / eth_getStorageAt.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { verifyMerkleProof } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { Interface, getBytes, keccak256, toBeHex, zeroPadValue } from 'ethers';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { type KestrelNode, printLogsOnFailure, rpc, rpcResult, startNode } from '../helpers/node.ts';
import { testContracts } from '../helpers/solc.ts';
import { sendTx } from '../helpers/tx.ts';
import { WsRpc } from '../helpers/ws.ts';

const EMPTY_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';
const EMPTY_CODE = '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470';
const { Store } = testContracts();
const alice = DEV_ACCOUNTS[3]!;

let node: KestrelNode;
let store: string;
let oldBlock: string;

const hexToU8 = (h: string) => getBytes(h);
const big = (b: Uint8Array) => (b.length === 0 ? 0n : BigInt('0x' + Buffer.from(b).toString('hex')));

/** Verifies a proof object against `stateRoot`; returns the account fields the proof proves (null = absent). */
async function verifyAccount(
  p: any,
  stateRoot: string,
): Promise<{ nonce: bigint; balance: bigint; storageRoot: string; codeHash: string } | null> {
  const value = await verifyMerkleProof(hexToU8(p.address), p.accountProof.map(hexToU8), {
    root: hexToU8(stateRoot),
    useKeyHashing: true,
  });
  if (value === null) return null;
  const [nonce, balance, storageRoot, codeHash] = RLP.decode(value) as Uint8Array[];
  return {
    nonce: big(nonce!),
    balance: big(balance!),
    storageRoot: '0x' + Buffer.from(storageRoot!).toString('hex'),
    codeHash: '0x' + Buffer.from(codeHash!).toString('hex'),
  };
}

/** Verifies one storage proof against `storageHash`; returns the proven value (0 when absent). */
async function verifySlot(s: any, storageHash: string): Promise<bigint> {
  // An empty storage trie has no nodes: the account proof already proves storageHash is the empty root, and
  // the slot proof is [] (as geth answers).
  if (storageHash === EMPTY_ROOT) {
    assert.deepEqual(s.proof, []);
    return 0n;
  }
  const key = zeroPadValue(toBeHex(BigInt(s.key)), 32);
  const v = await verifyMerkleProof(hexToU8(key), s.proof.map(hexToU8), {
    root: hexToU8(storageHash),
    useKeyHashing: true,
  });
  return v === null ? 0n : big(RLP.decode(v) as Uint8Array);
}

describe('eth_getProof', { timeout: 90_000 }, () => {
  before(async () => {
    node = await startNode();
    const deploy = new Interface(Store.abi).encodeDeploy([41n, 'proof']);
    const { receipt } = await sendTx(node.http, alice.privateKey, {
      to: null,
      data: Store.bytecode + deploy.slice(2),
      gas: 1_000_000n,
    });
    store = receipt.contractAddress;
    oldBlock = receipt.blockNumber;
    await sendTx(node.http, alice.privateKey, {
      to: store,
      data: new Interface(Store.abi).encodeFunctionData('set', [99n]),
      gas: 100_000n,
    });
  });
  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    await node?.dispose();
  });

  for (const tag of ['latest', 'old'] as const) {
    it(`proves a contract's account and storage against the ${tag} stateRoot`, async () => {
      const sel = tag === 'latest' ? 'latest' : oldBlock;
      const block = await rpcResult(node.http, 'eth_getBlockByNumber', [sel, false]);
      const keys = ['0x0', '0x1', '0x0000000000000000000000000000000000000000000000000000000000000003', '0x9'];
      const p = await rpcResult(node.http, 'eth_getProof', [store, keys, sel]);
      const acc = await verifyAccount(p, block.stateRoot);
      assert.ok(acc, 'the account is in the trie');
      assert.equal(toBeHex(acc.balance), toBeHex(BigInt(await rpcResult(node.http, 'eth_getBalance', [store, sel]))));
      assert.equal(acc.nonce, BigInt(await rpcResult(node.http, 'eth_getTransactionCount', [store, sel])));
      assert.equal(acc.nonce, BigInt(p.nonce));
      assert.equal(acc.balance, BigInt(p.balance));
      assert.equal(acc.storageRoot, p.storageHash);
      assert.equal(acc.codeHash, p.codeHash);
      assert.equal(p.codeHash, keccak256(await rpcResult(node.http, 'eth_getCode', [store, sel])));
      assert.deepEqual(
        p.storageProof.map((s: any) => s.key),
        ['0x0', '0x1', keys[2], '0x9'],
        'keys echo geth-style',
      );
      for (const s of p.storageProof) {
        const proven = await verifySlot(s, p.storageHash);
        assert.equal(proven, BigInt(s.value), `slot ${s.key}`);
        assert.equal(
          proven,
          BigInt(await rpcResult(node.http, 'eth_getStorageAt', [store, s.key, sel])),
          `slot ${s.key} vs getStorageAt`,
        );
      }
      assert.equal(BigInt(p.storageProof[1].value), tag === 'latest' ? 99n : 41n);
      assert.equal(BigInt(p.storageProof[3].value), 0n, 'an empty slot has a valid exclusion proof');
      assert.equal(BigInt(p.storageProof[0].value), BigInt(alice.address));
    });
  }

  it('proves an EOA and rejects a tampered root', async () => {
    const block = await rpcResult(node.http, 'eth_getBlockByNumber', ['latest', false]);
    const p = await rpcResult(node.http, 'eth_getProof', [alice.address, []]);
    const acc = await verifyAccount(p, block.stateRoot);
    assert.equal(acc?.balance, BigInt(await rpcResult(node.http, 'eth_getBalance', [alice.address, 'latest'])));
    assert.equal(acc?.nonce, 2n);
    assert.equal(p.storageHash, EMPTY_ROOT);
    assert.equal(p.codeHash, EMPTY_CODE);
    await assert.rejects(verifyAccount(p, '0x' + '11'.repeat(32)));
  });

  it('gives an absent account a valid exclusion proof and zero fields', async () => {
    const block = await rpcResult(node.http, 'eth_getBlockByNumber', ['latest', false]);
    const nobody = '0x' + 'ab'.repeat(20);
    const p = await rpcResult(node.http, 'eth_getProof', [nobody, ['0x1'], { blockHash: block.hash }]);
    assert.equal(await verifyAccount(p, block.stateRoot), null);
    assert.deepEqual(
      { balance: p.balance, nonce: p.nonce, codeHash: p.codeHash, storageHash: p.storageHash },
      { balance: '0x0', nonce: '0x0', codeHash: EMPTY_CODE, storageHash: EMPTY_ROOT },
    );
    assert.equal(p.storageProof.length, 1);
    assert.equal(await verifySlot(p.storageProof[0], p.storageHash), 0n);
    assert.equal(p.storageProof[0].value, '0x0');
  });

  it('works over WebSocket and at genesis, and reports bad input', async () => {
    const ws = await WsRpc.connect(node.ws);
    try {
      const genesis = await ws.result('eth_getBlockByNumber', ['0x0', false]);
      const p = await ws.result('eth_getProof', [alice.address, [], '0x0']);
      assert.equal((await verifyAccount(p, genesis.stateRoot))?.nonce, 0n);
    } finally {
      await ws.close();
    }
    const bad = async (params: unknown[]) => (await rpc(node.http, 'eth_getProof', params)).error;
    assert.deepEqual(await bad(['0x1234', []]), {
      code: -32602,
      message: 'invalid argument 0: hex string has length 4, want 40 for common.Address',
    });
    assert.equal((await bad([alice.address, '0x1']))?.code, -32602);
    assert.equal((await bad([alice.address, ['0x' + '1'.repeat(65)]]))?.code, -32602);
    assert.deepEqual(await bad([alice.address, [], '0xffff']), { code: -32000, message: 'header not found' });
  });
});
