// Protobuf wire codec for the cosmos.bank.v1beta1 query messages, field numbers as in proto/ (checked against the
// .proto files by proto.test.ts). Hand-written because the messages are few and flat, and it keeps bigint amounts
// and Uint8Array keys without a Long/Buffer layer in between.
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
const utf8enc = new TextEncoder();

/** Appends protobuf fields to a growing byte list. */
export class ProtoWriter {
  private readonly bytes: number[] = [];

  private varint(v: bigint): void {
    while (v > 0x7fn) {
      this.bytes.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.bytes.push(Number(v));
  }

  private tag(field: number, wt: number): void {
    this.varint(BigInt((field << 3) | wt));
  }

  /** A uint64 field (omitted when 0, as proto3 does). */
  uint64(field: number, v: bigint): this {
    if (v !== 0n) {
      this.tag(field, WT_VARINT);
      this.varint(v);
    }
    return this;
  }

  /** A bool field (omitted when false). */
  bool(field: number, v: boolean): this {
    if (v) {
      this.tag(field, WT_VARINT);
      this.bytes.push(1);
    }
    return this;
  }

  /** A bytes field (omitted when empty). */
  bytesField(field: number, v: Uint8Array | undefined): this {
    if (v !== undefined && v.length > 0) this.len(field, v);
    return this;
  }

  /** A string field (omitted when empty). */
  string(field: number, v: string): this {
    if (v !== '') this.len(field, utf8enc.encode(v));
    return this;
  }

  /** An embedded message, always written (even when empty): the SDK sets these pointers. */
  message(field: number, inner: ProtoWriter): this {
    return this.len(field, inner.finish());
  }

  private len(field: number, v: Uint8Array): this {
    this.tag(field, WT_LEN);
    this.varint(BigInt(v.length));
    for (const b of v) this.bytes.push(b);
    return this;
  }

  /** The encoded bytes. */
  finish(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }
}

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
 * Decodes a message of string fields and at most one embedded PageRequest (every bank query request has this
 * shape). `strings` maps field numbers to names; `pageField` is the PageRequest field number, if any.
 */
export function decodeRequest(
  buf: Uint8Array,
  strings: Record<number, string>,
  pageField?: number,
): { strings: Record<string, string>; page: PageRequest } {
  const out: Record<string, string> = {};
  for (const name of Object.values(strings)) out[name] = '';
  let page: Uint8Array | undefined;
  for (const f of readFields(buf)) {
    const name = strings[f.no];
    if (name !== undefined) out[name] = str(f, name);
    else if (f.no === pageField) {
      expectWt(f, WT_LEN, 'pagination');
      page = f.data;
    }
  }
  return { strings: out, page: decodePageRequest(page) };
}

/** Encodes a Coin. */
export function coinWriter(c: Coin): ProtoWriter {
  return new ProtoWriter().string(1, c.denom).string(2, c.amount.toString());
}

/** Encodes a PageResponse. */
export function pageResponseWriter(p: PageResponse): ProtoWriter {
  return new ProtoWriter().bytesField(1, p.nextKey).uint64(2, p.total);
}

/** Encodes `{repeated Coin = 1; PageResponse = 2}` (AllBalances, SpendableBalances, TotalSupply responses). */
export function encodeCoinsPage(coins: Coin[], page: PageResponse): Uint8Array {
  const w = new ProtoWriter();
  for (const c of coins) w.message(1, coinWriter(c));
  return w.message(2, pageResponseWriter(page)).finish();
}

/** Encodes `{Coin = 1}` (Balance, SupplyOf responses). */
export function encodeSingleCoin(c: Coin): Uint8Array {
  return new ProtoWriter().message(1, coinWriter(c)).finish();
}

/** Encodes a request of the same shapes (used by clients: the CLI and tests). */
export function encodeRequest(strings: Array<[number, string]>, page?: [number, Partial<PageRequest>]): Uint8Array {
  const w = new ProtoWriter();
  for (const [no, v] of strings) w.string(no, v);
  if (page) {
    const p = page[1];
    w.message(
      page[0],
      new ProtoWriter()
        .bytesField(1, p.key)
        .uint64(2, p.offset ?? 0n)
        .uint64(3, p.limit ?? 0n)
        .bool(4, p.countTotal ?? false)
        .bool(5, p.reverse ?? false),
    );
  }
  return w.finish();
}

/** Decodes a `{repeated Coin = 1; PageResponse = 2}` or `{Coin = 1}` response (clients). */
export function decodeCoinsResponse(buf: Uint8Array): { coins: Coin[]; page: PageResponse | undefined } {
  const coins: Coin[] = [];
  let page: PageResponse | undefined;
  for (const f of readFields(buf)) {
    if (f.no === 1) {
      expectWt(f, WT_LEN, 'coin');
      const c: Coin = { denom: '', amount: 0n };
      for (const g of readFields(f.data)) {
        if (g.no === 1) c.denom = str(g, 'denom');
        else if (g.no === 2) c.amount = BigInt(str(g, 'amount') || '0');
      }
      coins.push(c);
    } else if (f.no === 2) {
      expectWt(f, WT_LEN, 'pagination');
      page = { nextKey: undefined, total: 0n };
      for (const g of readFields(f.data)) {
        if (g.no === 1) {
          expectWt(g, WT_LEN, 'next_key');
          page.nextKey = g.data.length ? Uint8Array.from(g.data) : undefined;
        } else if (g.no === 2) {
          expectWt(g, WT_VARINT, 'total');
          page.total = g.int;
        }
      }
    }
  }
  return { coins, page };
}
