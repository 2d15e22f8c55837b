// The bank module through every channel: the same balance from the CLI (json and text), gRPC and eth_getBalance,
// at the head and at an older height after transfers; multi-denom accounts; pagination across 250 denoms; supply.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { bech32 } from 'bech32';
import { DEV_ACCOUNTS, DEV_BALANCE } from '../helpers/accounts.ts';
import { bankClient, cli, initHomeWithDenoms, type BankClient } from '../helpers/cosmos.ts';
import { type KestrelNode, printLogsOnFailure, rpcResult, startNode } from '../helpers/node.ts';
import { sendTx } from '../helpers/tx.ts';

const acc = (hex: string) => bech32.encode('kestrel', bech32.toWords(Buffer.from(hex.slice(2), 'hex')));
const DENOMS = Array.from({ length: 250 }, (_, i) => `tok${String(i).padStart(3, '0')}`);
const STAKE = (10n ** 24n).toString();

describe('bank balances through CLI, gRPC and eth_getBalance', { timeout: 150_000 }, () => {
  let base: string;
  let node: KestrelNode;
  let grpc: BankClient;
  const [alice, , carol, dave] = DEV_ACCOUNTS as [
    (typeof DEV_ACCOUNTS)[0],
    (typeof DEV_ACCOUNTS)[0],
    (typeof DEV_ACCOUNTS)[0],
    (typeof DEV_ACCOUNTS)[0],
  ];
  let before2: number; // a height between the two transfers
  afterEach(printLogsOnFailure(() => node));

  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'kestrel-bank-'));
    const home = join(base, 'home');
    await initHomeWithDenoms(
      home,
      3,
      DENOMS.map((denom, i) => ({ denom, amount: String(i + 1) })),
    );
    node = await startNode({ home });
    grpc = bankClient(node.grpc);
    await sendTx(node.http, alice.privateKey, { to: carol.address, value: 10n ** 18n });
    before2 = Number(await rpcResult(node.http, 'eth_blockNumber'));
    await sendTx(node.http, alice.privateKey, { to: carol.address, value: 2n * 10n ** 18n });
  });
  after(async () => {
    grpc?.close();
    await node?.dispose();
    rmSync(base, { recursive: true, force: true });
  });

  async function threeWays(address: string, height: number | 'latest') {
    const h = height === 'latest' ? [] : ['--height', String(height)];
    const json = await cli([
      'q',
      'bank',
      'balances',
      acc(address),
      '--node',
      node.comet.replace('http', 'tcp'),
      '-o',
      'json',
      ...h,
    ]);
    assert.equal(json.code, 0, json.stderr);
    const text = await cli(['q', 'bank', 'balances', acc(address), '--node', node.comet.replace('http', 'tcp'), ...h]);
    assert.equal(text.code, 0, text.stderr);
    const g = await grpc.call('AllBalances', { address: acc(address) }, height === 'latest' ? undefined : height);
    const eth = BigInt(
      await rpcResult(node.http, 'eth_getBalance', [
        address,
        height === 'latest' ? 'latest' : `0x${height.toString(16)}`,
      ]),
    );
    return { json: JSON.parse(json.stdout), text: text.stdout, grpc: g, eth };
  }

  for (const when of ['latest', 'older'] as const) {
    it(`agrees on carol's and alice's balances at the ${when} height`, async () => {
      for (const who of [carol, alice]) {
        const height = when === 'latest' ? 'latest' : before2;
        const r = await threeWays(who.address, height);
        const evm = r.json.balances.find((c: any) => c.denom === 'akestrel');
        assert.equal(BigInt(evm.amount), r.eth, 'CLI json vs eth_getBalance');
        assert.deepEqual(r.grpc.res.balances, r.json.balances, 'gRPC vs CLI');
        assert.match(r.text, new RegExp(`- amount: "${r.eth}"\\n  denom: akestrel\\n`));
        assert.deepEqual(r.json.pagination, { next_key: null, total: '0' });
        if (when === 'older') assert.equal(r.grpc.height, String(before2));
      }
      const carolNow = await threeWays(carol.address, when === 'latest' ? 'latest' : before2);
      assert.equal(carolNow.eth, DEV_BALANCE + (when === 'latest' ? 3n : 1n) * 10n ** 18n);
    });
  }

  it('lists every denom of a multi-denom account, sorted, zero balances left out', async () => {
    const { res } = await grpc.call('AllBalances', { address: acc(alice.address) });
    assert.deepEqual(
      res.balances.map((c: any) => c.denom),
      ['akestrel', 'stake'],
    );
    assert.equal(res.balances[1].amount, STAKE);
    const { res: one } = await grpc.call('Balance', { address: acc(alice.address), denom: 'stake' });
    assert.deepEqual(one.balance, { denom: 'stake', amount: STAKE });
    const fresh = acc('0x000000000000000000000000000000000000dEaD');
    assert.deepEqual((await grpc.call('AllBalances', { address: fresh })).res.balances, []);
    const unknown = await grpc.call('Balance', { address: acc(alice.address), denom: 'nosuchdenom' });
    assert.deepEqual(unknown.res.balance, { denom: 'nosuchdenom', amount: '0' }); // the SDK answers 0, not an error
  });

  it('paginates 252 denoms by key, by offset, in reverse, with totals as the SDK does', async () => {
    const all = ['akestrel', 'stake', ...DENOMS].sort();
    const seen: string[] = [];
    let key: Buffer | undefined;
    let pages = 0;
    do {
      const { res } = await grpc.call('AllBalances', { address: acc(dave.address), pagination: { key, limit: '100' } });
      seen.push(...res.balances.map((c: any) => c.denom));
      assert.equal(res.pagination.total, '0', 'no total with a key');
      key = res.pagination.next_key.length ? res.pagination.next_key : undefined;
      pages++;
    } while (key && pages < 10);
    assert.equal(pages, 3);
    assert.deepEqual(seen, all);
    const byOffset = await grpc.call('AllBalances', {
      address: acc(dave.address),
      pagination: { offset: '250', limit: '100', count_total: true },
    });
    assert.deepEqual(
      byOffset.res.balances.map((c: any) => c.denom),
      all.slice(250),
    );
    assert.equal(byOffset.res.pagination.total, '252');
    assert.equal(byOffset.res.pagination.next_key.length, 0);
    const dflt = await grpc.call('AllBalances', { address: acc(dave.address) }); // limit 0 → 100 and count_total
    assert.equal(dflt.res.balances.length, 100);
    assert.equal(dflt.res.pagination.total, '252');
    assert.equal(dflt.res.pagination.next_key.toString(), all[100]);
    const rev = await grpc.call('AllBalances', {
      address: acc(dave.address),
      pagination: { limit: '3', reverse: true },
    });
    assert.deepEqual(
      rev.res.balances.map((c: any) => c.denom),
      all.slice(-3).reverse(),
    );
    const tok7 = (
      await grpc.call('AllBalances', {
        address: acc(dave.address),
        pagination: { key: Buffer.from('tok007'), limit: '1' },
      })
    ).res;
    assert.deepEqual(tok7.balances, [{ denom: 'tok007', amount: '8' }]);
    await assert.rejects(
      grpc.call('AllBalances', { address: acc(dave.address), pagination: { key: Buffer.from('tok007'), offset: '1' } }),
      (e: any) => e.code === 3 && /either offset or key is expected, got both/.test(e.details),
    );
    const cliPage = await cli([
      'q',
      'bank',
      'balances',
      acc(dave.address),
      '--node',
      node.comet.replace('http', 'tcp'),
      '-o',
      'json',
      '--limit',
      '2',
      '--page-key',
      'tok100',
      '--count-total',
    ]);
    assert.equal(cliPage.code, 0, cliPage.stderr);
    assert.deepEqual(JSON.parse(cliPage.stdout), {
      balances: [
        { denom: 'tok100', amount: '101' },
        { denom: 'tok101', amount: '102' },
      ],
      pagination: { next_key: Buffer.from('tok102').toString('base64'), total: '0' },
    });
  });

  it('reports supply per denom; the EVM denom supply stays constant across transfers', async () => {
    const { res } = await grpc.call('TotalSupply', { pagination: { limit: '300', count_total: true } });
    assert.equal(res.supply.length, 252);
    assert.equal(res.pagination.total, '252');
    const total = DEV_BALANCE * 10n;
    assert.deepEqual((await grpc.call('SupplyOf', { denom: 'akestrel' })).res.amount, {
      denom: 'akestrel',
      amount: total.toString(),
    });
    assert.deepEqual((await grpc.call('SupplyOf', { denom: 'stake' })).res.amount, {
      denom: 'stake',
      amount: (10n ** 25n).toString(),
    });
    assert.deepEqual((await grpc.call('SupplyOf', { denom: 'tok249' })).res.amount, { denom: 'tok249', amount: '250' });
    let sum = 0n;
    const coinbase = await rpcResult(node.http, 'eth_coinbase');
    for (const a of [...DEV_ACCOUNTS.map((d) => d.address), coinbase])
      sum += BigInt(await rpcResult(node.http, 'eth_getBalance', [a, 'latest']));
    assert.equal(sum, total, 'fees moved to the etherbase, nothing burned');
  });
});
