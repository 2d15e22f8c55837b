import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { InvalidParamsError } from '../../errors/index.ts';
import { paginate } from './pagination.ts';
import { QueryAllBalancesRequest, QueryAllBalancesResponse } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { decodeRequest, encodeCoinsPage, encodeSingleCoin, type PageRequest } from './proto.ts';

// The .proto files in proto/ are the contract: the node's codec (cosmjs-types for messages it writes, a strict reader
// for requests) must agree with protobufjs reading them.
const root = new protobuf.Root();
const dir = fileURLToPath(new URL('../../../proto/', import.meta.url));
root.resolvePath = (_o, t) => dir + t;
root.loadSync('cosmos/bank/v1beta1/query.proto', { keepCase: true });
const T = (n: string) => root.lookupType(`cosmos.bank.v1beta1.${n}`);

describe('bank protobuf codec vs proto/', () => {
  test('AllBalances request with every PageRequest field', () => {
    const bytes = T('QueryAllBalancesRequest')
      .encode({
        address: 'kestrel1x',
        pagination: { key: Buffer.from('tok'), offset: 7, limit: 300, count_total: true, reverse: true },
        resolve_denom: true,
      })
      .finish();
    const r = decodeRequest(bytes, { 1: 'address' }, 2);
    assert.equal(r.strings.address, 'kestrel1x');
    assert.deepEqual(r.page, {
      key: new TextEncoder().encode('tok'),
      offset: 7n,
      limit: 300n,
      countTotal: true,
      reverse: true,
    });
    const ours = Buffer.from(
      QueryAllBalancesRequest.encode({
        address: 'kestrel1x',
        pagination: { ...r.page, countTotal: r.page.countTotal },
        resolveDenom: false,
      }).finish(),
    );
    const theirs = Buffer.from(
      T('QueryAllBalancesRequest')
        .encode({
          address: 'kestrel1x',
          pagination: { key: Buffer.from('tok'), offset: 7, limit: 300, count_total: true, reverse: true },
        })
        .finish(),
    );
    assert.equal(ours.toString('hex'), theirs.toString('hex'));
  });
  test('responses decode in protobufjs', () => {
    const page = encodeCoinsPage(
      [
        { denom: 'akestrel', amount: 10n ** 30n },
        { denom: 'stake', amount: 1n },
      ],
      { nextKey: new Uint8Array([1, 2]), total: 5n },
    );
    const o = T('QueryAllBalancesResponse').toObject(T('QueryAllBalancesResponse').decode(page), {
      longs: String,
      bytes: Array,
      defaults: true,
    });
    assert.deepEqual(o, {
      balances: [
        { denom: 'akestrel', amount: (10n ** 30n).toString() },
        { denom: 'stake', amount: '1' },
      ],
      pagination: { next_key: [1, 2], total: '5' },
    });
    assert.deepEqual(QueryAllBalancesResponse.decode(page).pagination, { nextKey: new Uint8Array([1, 2]), total: 5n });
    const one = T('QueryBalanceResponse').toObject(
      T('QueryBalanceResponse').decode(encodeSingleCoin({ denom: 'stake', amount: 0n })),
      { defaults: true },
    );
    assert.deepEqual(one, { balance: { denom: 'stake', amount: '0' } });
  });
  test('malformed bytes are InvalidParams', () => {
    for (const bad of [[0x0a, 0x05, 0x61], [0x08], [0x0b], [0x12, 0x02, 0x10]]) {
      assert.throws(() => decodeRequest(Uint8Array.from(bad), { 1: 'address' }, 2), InvalidParamsError);
    }
  });
});

describe('paginate (SDK rules)', () => {
  const items = Array.from({ length: 250 }, (_, i) => `d${String(i).padStart(3, '0')}`);
  const key = (s: string) => new TextEncoder().encode(s);
  const req = (p: Partial<PageRequest>): PageRequest => ({
    key: new Uint8Array(0),
    offset: 0n,
    limit: 0n,
    countTotal: false,
    reverse: false,
    ...p,
  });
  const cases: Array<[string, Partial<PageRequest>, string[], string | undefined, bigint]> = [
    ['limit 0 → 100 with total', {}, items.slice(0, 100), 'd100', 250n],
    ['offset, no total', { offset: 240n, limit: 5n }, items.slice(240, 245), 'd245', 0n],
    ['offset past the end', { offset: 300n, limit: 5n, countTotal: true }, [], undefined, 250n],
    ['key inclusive, never a total', { key: key('d010'), limit: 2n, countTotal: true }, ['d010', 'd011'], 'd012', 0n],
    ['key between items', { key: key('d0105'), limit: 1n }, ['d011'], 'd012', 0n],
    ['reverse', { limit: 2n, reverse: true }, ['d249', 'd248'], 'd247', 0n],
    [
      'reverse from a key',
      { key: key('d005'), limit: 10n, reverse: true },
      ['d005', 'd004', 'd003', 'd002', 'd001', 'd000'],
      undefined,
      0n,
    ],
  ];
  for (const [name, r, page, next, total] of cases) {
    test(name, () => {
      const out = paginate(items, key, req(r));
      assert.deepEqual(out.page, page);
      assert.deepEqual(out.res, { nextKey: next === undefined ? undefined : key(next), total });
    });
  }
  test('key and offset together are refused', () => {
    assert.throws(
      () => paginate(items, key, req({ key: key('d001'), offset: 1n })),
      /invalid request, either offset or key is expected, got both/,
    );
  });
});
