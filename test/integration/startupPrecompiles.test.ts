// A fresh `--dev` chain seals block 1 and answers before the pairing curves' WebAssembly (mcl) has loaded; a call
// or a transaction that reaches the bn254 or BLS12-381 precompiles at once must still get the right answer: they
// wait for the libraries, nothing runs without them. The same on a restart of that home.
import assert from 'node:assert/strict';
import { after, afterEach, describe, it } from 'node:test';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { type KestrelNode, printLogsOnFailure, rpcResult, startNode, waitForReceipt } from '../helpers/node.ts';

const word = (hex: string) => hex.padStart(64, '0');
// G1's generator (1, 2) twice, and 2·G, on alt_bn128; the pairing check of no pairs is 1.
const G = word('1') + word('2');
const TWO_G =
  '0x' +
  word('030644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd3') +
  word('15ed738c0e0a7c92e7845f96b2ae9c0a68a6a449e3538fc7ff3ebf7a5a18a2c4');
const ONE = '0x' + word('1');

/** The calls a client makes the moment the node answers, all in flight together. */
async function curveCallsAtOnce(url: string): Promise<string[]> {
  return Promise.all([
    rpcResult<string>(url, 'eth_call', [{ to: '0x0000000000000000000000000000000000000006', data: '0x' + G + G }]),
    rpcResult<string>(url, 'eth_call', [{ to: '0x0000000000000000000000000000000000000008', data: '0x' }]),
    // BLS12-381 G1ADD of two points at infinity: the point at infinity.
    rpcResult<string>(url, 'eth_call', [
      { to: '0x000000000000000000000000000000000000000b', data: '0x' + '00'.repeat(256) },
    ]),
  ]);
}

describe('precompiles right after start', { timeout: 120_000 }, () => {
  let node: KestrelNode | undefined;
  afterEach(printLogsOnFailure(() => node));
  after(async () => node?.dispose());

  it('a fresh home answers with block 1 sealed, and curve precompile calls and txs made at once are right', async () => {
    node = await startNode();
    // startNode returned at the first answer: block 1 is already there.
    assert.equal(await rpcResult<string>(node.http, 'eth_blockNumber'), '0x1');
    const [sendHash, calls] = await Promise.all([
      rpcResult<string>(node.http, 'eth_sendTransaction', [
        {
          from: DEV_ACCOUNTS[1]!.address,
          to: '0x0000000000000000000000000000000000000006',
          data: '0x' + G + G,
          gas: '0x10000',
        },
      ]),
      curveCallsAtOnce(node.http),
    ]);
    assert.deepEqual(calls, [TWO_G, ONE, '0x' + '00'.repeat(128)]);
    const receipt = await waitForReceipt(node.http, sendHash);
    // A failed precompile call takes all the gas and the tx fails: this one succeeded, at EIP-7623's calldata
    // floor (21,000 + 10 per token; 124 zero bytes and 4 nonzero ones of 4 tokens each), above 21,000 + 560 + 150.
    assert.equal(receipt.status, '0x1');
    assert.equal(BigInt(receipt.gasUsed), 21_000n + 10n * (124n + 4n * 4n));
  });

  it('a restart on that home answers the same calls made at once', async () => {
    node = await node!.restart();
    assert.deepEqual(await curveCallsAtOnce(node.http), [TWO_G, ONE, '0x' + '00'.repeat(128)]);
  });
});
