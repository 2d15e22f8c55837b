// Instant mode (`--block-time 0`) mines before it answers a send: the receipt exists when the hash comes back,
// so ethers' tx.wait() never waits for a next block that only another tx would make.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { JsonRpcProvider, Wallet, type TransactionRequest } from 'ethers';
import { CHAIN_ID, nonCoinbaseAccounts } from '../helpers/accounts.ts';
import { type KestrelNode, printLogsOnFailure, startNode } from '../helpers/node.ts';
import { privateRpc } from '../helpers/privateRpc.ts';

/**
 * A stalled wait() never ends on its own: instant mode makes no block until another tx comes, and this loop sends
 * the next one only after the wait. Any bound far above a send's time tells a stall from a slow (loaded) machine;
 * a tighter one would be a timed test (on a CI machine at load 10, 2 of 500 sends once took over 2 s).
 */
const STALL_MS = 30_000;

describe('instant mode answers a send once its block is committed', { timeout: 300_000 }, () => {
  let node: KestrelNode;
  let provider: JsonRpcProvider;
  let alice: Wallet;
  let bobAddress: string;

  before(async () => {
    node = await startNode({ args: ['--block-time', '0'] });
    provider = new JsonRpcProvider(node.http, CHAIN_ID, {
      staticNetwork: true,
      pollingInterval: 200,
      cacheTimeout: -1,
    });
    const [a, b] = nonCoinbaseAccounts(await provider.send('eth_coinbase', []));
    alice = new Wallet(a!.privateKey, provider);
    bobAddress = b!.address;
  });
  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    provider?.destroy();
    await node?.dispose();
  });

  it('500 sequential ethers sends with wait(): none stalls', async () => {
    const times: number[] = [];
    let nonce = await provider.getTransactionCount(alice.address, 'pending');
    for (let i = 0; i < 500; i++) {
      const t0 = performance.now();
      const req: TransactionRequest = { to: bobAddress, value: 1n, nonce: nonce++, gasLimit: 21_000n };
      const receipt = await (await alice.sendTransaction(req)).wait(1, STALL_MS);
      times.push(performance.now() - t0);
      assert.equal(receipt?.status, 1);
    }
    const sorted = [...times].sort((x, y) => x - y);
    const stalls = times.filter((t) => t > STALL_MS).length;
    console.log(
      `# 500 sends+wait: p50 ${sorted[250]!.toFixed(1)} ms, max ${sorted[499]!.toFixed(1)} ms, stalls ${stalls}`,
    );
    assert.equal(stalls, 0, `sends that took more than ${STALL_MS} ms: ${stalls}`);
  });

  it('the receipt exists when eth_sendRawTransaction, eth_sendTransaction and personal_sendTransaction answer', async () => {
    const raw = await alice.signTransaction({
      to: bobAddress,
      value: 1n,
      gasLimit: 21_000n,
      chainId: CHAIN_ID,
      type: 2,
      nonce: await provider.getTransactionCount(alice.address, 'pending'),
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 10n ** 9n,
    });
    const h1: string = await provider.send('eth_sendRawTransaction', [raw]);
    assert.ok(await provider.send('eth_getTransactionReceipt', [h1]), 'receipt after eth_sendRawTransaction');
    const from = (await provider.send('eth_accounts', []))[0];
    const h2: string = await provider.send('eth_sendTransaction', [{ from, to: bobAddress, value: '0x1' }]);
    assert.ok(await provider.send('eth_getTransactionReceipt', [h2]), 'receipt after eth_sendTransaction');
    const res = await privateRpc<string>(node, 'personal_sendTransaction', [
      { from, to: bobAddress, value: '0x1' },
      '',
    ]);
    const h3 = res.result!;
    assert.ok(await provider.send('eth_getTransactionReceipt', [h3]), 'receipt after personal_sendTransaction');
  });

  it('concurrent sends still share blocks (32 in flight)', async () => {
    const base = await provider.getTransactionCount(alice.address, 'pending');
    const raws = await Promise.all(
      Array.from({ length: 32 }, (_, i) =>
        alice.signTransaction({
          to: bobAddress,
          value: 1n,
          gasLimit: 21_000n,
          chainId: CHAIN_ID,
          type: 2,
          nonce: base + i,
          maxFeePerGas: 10n ** 11n,
          maxPriorityFeePerGas: 10n ** 9n,
        }),
      ),
    );
    const hashes: string[] = await Promise.all(raws.map((raw) => provider.send('eth_sendRawTransaction', [raw])));
    const blocks = new Set<string>();
    for (const h of hashes) {
      const r = await provider.send('eth_getTransactionReceipt', [h]);
      assert.ok(r, `receipt of ${h} when its send answered`);
      blocks.add(r.blockNumber);
    }
    assert.ok(blocks.size <= 8, `32 concurrent sends took ${blocks.size} blocks`);
  });

  it('a tx behind a nonce gap is answered at once (it cannot be mined yet)', async () => {
    const nonce = (await provider.getTransactionCount(alice.address, 'pending')) + 5;
    const t0 = performance.now();
    const raw = await alice.signTransaction({
      to: bobAddress,
      value: 1n,
      gasLimit: 21_000n,
      chainId: CHAIN_ID,
      type: 2,
      nonce,
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 10n ** 9n,
    });
    const h: string = await provider.send('eth_sendRawTransaction', [raw]);
    assert.ok(performance.now() - t0 < STALL_MS);
    assert.equal(await provider.send('eth_getTransactionReceipt', [h]), null);
  });
});
