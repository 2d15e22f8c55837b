// The [cache] budget holds: a node with the smallest budget (64 MiB) writes and reads far more trie nodes, storage
// words and blocks than its caches may keep; every cache's bytes in the metrics stay within its share (and the sum
// within the budget), the trie-node cache is driven to its bound (so the check can fail), and reads across evicted
// state still answer what was written, at the head and at older blocks. A block's new nodes do not enter the node
// cache (the next block reads its parent's flat state), so the historical reads, read twice, are what fill it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { devAccounts, signLegacy } from '../../bench/lib/tx.ts';
import { CHAIN_ID } from '../helpers/accounts.ts';
import { freePort, type KestrelNode, post, rpcResult, startNode, waitForReceipt } from '../helpers/node.ts';

const BUDGET_MIB = 64;
/** Slots each call writes (slot i gets the value i, from the calldata's start). */
const SLOTS_PER_TX = 500;
const TXS = 40;

// Runtime: i = calldata[0:32]; do { sstore(i, i); i++ } while (i < start + 500). Init code copies it out.
const RUNTIME = '600035806101f401905b808055600101818110600957' + '00';
const INIT =
  '60' +
  (RUNTIME.length / 2).toString(16).padStart(2, '0') +
  '600c600039' +
  '60' +
  (RUNTIME.length / 2).toString(16).padStart(2, '0') +
  '6000f3';

interface CacheRow {
  bytes: number;
  limit: number;
}

async function caches(metricsAt: string): Promise<Map<string, CacheRow>> {
  const text = await (await fetch(`http://${metricsAt}/metrics`)).text();
  const out = new Map<string, CacheRow>();
  for (const m of text.matchAll(/^kestrel_cache_(bytes|limit_bytes)\{cache="(\w+)"\} (\S+)$/gm)) {
    const row = out.get(m[2]!) ?? { bytes: 0, limit: 0 };
    if (m[1] === 'bytes') row.bytes = Number(m[3]);
    else row.limit = Number(m[3]);
    out.set(m[2]!, row);
  }
  return out;
}

function word(n: number): string {
  return '0x' + n.toString(16).padStart(64, '0');
}

describe('cache budget', () => {
  let node: KestrelNode;
  let metricsAt: string;

  /** Every cache within its share and all within the budget; returns the trie-node cache's fill (0..1). */
  async function checkCaches(): Promise<number> {
    const now = await caches(metricsAt);
    let total = 0;
    for (const [name, c] of now) {
      assert.ok(c.limit > 0, `${name} has no limit`);
      assert.ok(c.bytes <= c.limit, `${name} holds ${c.bytes} bytes, over its ${c.limit}`);
      total += c.bytes;
    }
    assert.ok(total <= BUDGET_MIB * 1024 * 1024, `caches hold ${total} bytes in all`);
    return now.get('trie_nodes')!.bytes / now.get('trie_nodes')!.limit;
  }

  /** Reads slots first..last of `contract` at block `at` in batches, checking each answer and the caches. */
  async function readSlots(contract: string, first: number, last: number, at: string): Promise<number> {
    let peak = 0;
    for (let from = first; from <= last; from += 1000) {
      const slots = Array.from({ length: Math.min(1000, last - from + 1) }, (_, i) => from + i);
      const body = slots.map((slot, id) => ({
        jsonrpc: '2.0',
        id,
        method: 'eth_getStorageAt',
        params: [contract, word(slot), at],
      }));
      const res = await post(node.http, JSON.stringify(body), { timeoutMs: 60_000 });
      const answers = res.json as Array<{ id: number; result?: string; error?: unknown }>;
      assert.equal(answers.length, slots.length, `batch at ${at}: ${res.text.slice(0, 300)}`);
      for (const a of answers) assert.equal(a.result, word(slots[a.id]!), `slot ${slots[a.id]} at ${at}`);
      peak = Math.max(peak, await checkCaches());
    }
    return peak;
  }
  before(async () => {
    metricsAt = `127.0.0.1:${await freePort()}`;
    node = await startNode({ args: ['--cache.budget-mb', String(BUDGET_MIB), '--metrics.address', metricsAt] });
  });
  after(() => node?.dispose());

  test(`${TXS} x ${SLOTS_PER_TX} fresh slots under a ${BUDGET_MIB} MiB budget: every cache within its share`, async (t) => {
    const [acct] = devAccounts(1);
    const chainId = BigInt(CHAIN_ID);
    const deploy = signLegacy(acct!, chainId, {
      nonce: 0,
      gas: 200_000n,
      to: null,
      value: 0n,
      data: '0x' + INIT + RUNTIME,
    });
    await rpcResult(node.http, 'eth_sendRawTransaction', [deploy.raw]);
    const contract = (await waitForReceipt(node.http, deploy.hash, 60_000)).contractAddress as string;
    const blockOfTx: number[] = [];
    let peak = 0;
    for (let t = 0; t < TXS; t++) {
      const tx = signLegacy(acct!, chainId, {
        nonce: t + 1,
        gas: 12_000_000n,
        to: contract,
        value: 0n,
        data: word(1 + t * SLOTS_PER_TX),
      });
      await rpcResult(node.http, 'eth_sendRawTransaction', [tx.raw]);
      const rc = await waitForReceipt(node.http, tx.hash, 60_000);
      assert.equal(rc.status, '0x1', `tx ${t} reverted`);
      blockOfTx.push(Number(BigInt(rc.blockNumber)));
      peak = Math.max(peak, await checkCaches());
    }
    // Every slot at three pairs of older blocks: their storage tries share few nodes, so together they hold more
    // than the trie-node share. A node read once stays on the cache's probation segment (an eighth of it); read again
    // soon after, it joins the main segment. Each 1,000-slot batch is read at a block and then at the next one, whose
    // trie shares all but the new slots' paths, so the second read finds the nodes on probation.
    for (const t of [TXS - 2, TXS - 12, TXS - 22]) {
      const [a, b] = [blockOfTx[t]!, blockOfTx[t + 1]!].map((n) => '0x' + n.toString(16));
      for (let from = 1; from <= (t + 1) * SLOTS_PER_TX; from += 1000) {
        const to = Math.min(from + 999, (t + 1) * SLOTS_PER_TX);
        peak = Math.max(peak, await readSlots(contract, from, to, a!), await readSlots(contract, from, to, b!));
      }
    }
    const last = await caches(metricsAt);
    assert.equal(last.size, 12);
    t.diagnostic(
      `trie-node cache peak ${(peak * 100).toFixed(0)}% of its share; at the end: ` +
        [...last]
          .map(([n, c]) => `${n} ${(c.bytes / 1048576).toFixed(1)}/${(c.limit / 1048576).toFixed(1)} MiB`)
          .join(', '),
    );
    // The reads went well past the trie-node share: it was driven to (nearly) full and evicted from then on (91% here:
    // the main segment, 7/8 of the share, full, and probation's eighth partly refilled by the last reads).
    assert.ok(peak > 0.85, `trie-node cache peaked at ${(peak * 100).toFixed(0)}% of its share`);

    // Reads through evicted nodes answer what was written: at the head, and at the block of each write.
    const total = TXS * SLOTS_PER_TX;
    for (const slot of [1, 2, 499, 500, 501, 7_777, total - 1, total, total + 1]) {
      const want = slot <= total ? word(slot) : word(0);
      assert.equal(
        await rpcResult(node.http, 'eth_getStorageAt', [contract, word(slot), 'latest']),
        want,
        `slot ${slot}`,
      );
    }
    for (const t of [0, 7, TXS - 1]) {
      const at = '0x' + blockOfTx[t]!.toString(16);
      const last = (t + 1) * SLOTS_PER_TX;
      assert.equal(await rpcResult(node.http, 'eth_getStorageAt', [contract, word(last), at]), word(last));
      // The next tx's first slot was still empty at that block.
      assert.equal(await rpcResult(node.http, 'eth_getStorageAt', [contract, word(last + 1), at]), word(0));
    }
    const nonce = await rpcResult<string>(node.http, 'eth_getTransactionCount', [acct!.address, 'latest']);
    assert.equal(BigInt(nonce), BigInt(TXS + 1));
  });
});
