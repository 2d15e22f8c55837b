// Protobuf for the cosmos.bank.v1beta1 query messages (checked against the .proto files in proto/ by proto.test.ts).
// Responses are encoded by cosmjs-types, the node's one protobuf codec (also ABCI's). Requests come from anyone, so
// a strict reader decodes them: it names the field that is wrong, refuses invalid UTF-8 and wrong wire types with
// InvalidParams, which cosmjs-types' permissive reader would let through or report as a plain Error.
import { QueryAllBalancesResponse, QueryBalanceResponse } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { InvalidParamsError } from '../../errors/index.ts';

/** cosmos.base.query.v1beta1.PageRequest */
export interface PageRequest {
  key: Uint8Array;
  offset: bigint;
  limit: bigint;
  countTotal: boolean;
  reverse: boolean;
}

/** cosmos.base.query.v1beta1.PageResponse (nextKey undefined = last page). */
export interface PageResponse {
  nextKey: Uint8Array | undefined;
  total: bigint;
}

/** cosmos.base.v1beta1.Coin with the amount as a bigint. */
export interface Coin {
  denom: string;
  amount: bigint;
}

const WT_VARINT = 0;
const WT_I64 = 1;
const WT_LEN = 2;
const WT_I32 = 5;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** One decoded field: varints as bigint, length-delimited as bytes. */
type Field = { no: number; wt: number; int: bigint; data: Uint8Array };

function bad(why: string): never {
  throw new InvalidParamsError(`failed to decode request: ${why}`);
}

function* readFields(buf: Uint8Array): Generator<Field> {
  let i = 0;
  const varint = (): bigint => {
    let v = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (i >= buf.length) bad('unexpected end of input');
      if (shift > 63n) bad('varint overflow');
      const b = buf[i++]!;
      v |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return v;
    }
  };
  while (i < buf.length) {
    const key = varint();
    const no = Number(key >> 3n);
    const wt = Number(key & 7n);
    if (no === 0) bad('illegal field number 0');
    if (wt === WT_VARINT) {
      yield { no, wt, int: varint(), data: new Uint8Array(0) };
    } else if (wt === WT_LEN) {
      const n = Number(varint());
      if (i + n > buf.length) bad('length out of range');
      yield { no, wt, int: 0n, data: buf.subarray(i, i + n) };
      i += n;
    } else if (wt === WT_I64 || wt === WT_I32) {
      const n = wt === WT_I64 ? 8 : 4;
      if (i + n > buf.length) bad('unexpected end of input');
      i += n; // no fixed-width fields in these messages: skip, as unknown fields are
    } else {
      bad(`illegal wire type ${wt}`);
    }
  }
}

function expectWt(f: Field, wt: number, name: string): void {
  if (f.wt !== wt) bad(`wrong wire type ${f.wt} for field ${name}`);
}

function str(f: Field, name: string): string {
  expectWt(f, WT_LEN, name);
  try {
    return utf8.decode(f.data);
  } catch {
    return bad(`field ${name} is not valid UTF-8`);
  }
}

/** Decodes a PageRequest (all defaults when absent). */
export function decodePageRequest(buf: Uint8Array | undefined): PageRequest {
  const r: PageRequest = { key: new Uint8Array(0), offset: 0n, limit: 0n, countTotal: false, reverse: false };
  if (!buf) return r;
  for (const f of readFields(buf)) {
    if (f.no === 1) {
      expectWt(f, WT_LEN, 'key');
      r.key = Uint8Array.from(f.data);
    } else if (f.no === 2) {
      expectWt(f, WT_VARINT, 'offset');
      r.offset = f.int;
    } else if (f.no === 3) {
      expectWt(f, WT_VARINT, 'limit');
      r.limit = f.int;
    } else if (f.no === 4) {
      expectWt(f, WT_VARINT, 'count_total');
      r.countTotal = f.int !== 0n;
    } else if (f.no === 5) {
      expectWt(f, WT_VARINT, 'reverse');
      r.reverse = f.int !== 0n;
    }
  }
  return r;
}

/**
 * Decodes a message of string fields, unsigned varint fields and at most one embedded PageRequest (every bank,
 * staking, distribution and slashing query request has this shape). `strings` and `ints` map field numbers to
 * names; `pageField` is the PageRequest field number, if any.
 */
export function decodeRequest(
  buf: Uint8Array,
  strings: Record<number, string>,
  pageField?: number,
  ints: Record<number, string> = {},
): { strings: Record<string, string>; ints: Record<string, bigint>; page: PageRequest } {
  const out: Record<string, string> = {};
  const nums: Record<string, bigint> = {};
  for (const name of Object.values(strings)) out[name] = '';
  for (const name of Object.values(ints)) nums[name] = 0n;
  let page: Uint8Array | undefined;
  for (const f of readFields(buf)) {
    const name = strings[f.no];
    const intName = ints[f.no];
    if (name !== undefined) out[name] = str(f, name);
    else if (intName !== undefined) {
      expectWt(f, WT_VARINT, intName);
      nums[intName] = f.int;
    } else if (f.no === pageField) {
      expectWt(f, WT_LEN, 'pagination');
      page = f.data;
    }
  }
  return { strings: out, ints: nums, page: decodePageRequest(page) };
}

/** Encodes `{repeated Coin = 1; PageResponse = 2}` (AllBalances, SpendableBalances, TotalSupply responses). */
export function encodeCoinsPage(coins: Coin[], page: PageResponse): Uint8Array {
  return QueryAllBalancesResponse.encode({
    balances: coins.map(wireCoin),
    // Always present (even when empty): the SDK sets this pointer.
    pagination: { nextKey: page.nextKey ?? new Uint8Array(0), total: page.total },
  }).finish();
}

/** Encodes `{Coin = 1}` (Balance, SupplyOf responses). */
export function encodeSingleCoin(c: Coin): Uint8Array {
  return QueryBalanceResponse.encode({ balance: wireCoin(c) }).finish();
}

function wireCoin(c: Coin): { denom: string; amount: string } {
  return { denom: c.denom, amount: c.amount.toString() };
}
