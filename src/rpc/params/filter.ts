// The log filter object (eth_getLogs, eth_newFilter, eth_subscribe "logs") and the filter/subscription id codecs.
// Shape and messages follow geth's FilterCriteria.UnmarshalJSON; keys match case-insensitively, as Go's
// encoding/json does, which is why the SPEC's "blockhash" works the same as "blockHash".
import { InvalidParamsError, NotificationsUnsupportedError } from '../../errors/index.ts';
import type { LogCriteria } from '../../filters/criteria.ts';
import { MAX_ADDRESSES, MAX_TOPICS } from '../../filters/criteria.ts';
import type { SubscriptionRequest } from '../../filters/subscriptions.ts';
import { blockNumberOrTag } from './block.ts';
import type { Codec } from './codec.ts';
import { ParamError, codec } from './codec.ts';
import { UnmarshalTypeError, bool, has0xPrefix, isHexDigits, jsonKind } from './data.ts';
import { hexToBytes } from '../../primitives/hex.ts';

type Obj = Record<string, unknown>;

/** obj's value for `name`: the exact key if present, else the first case-insensitive match (Go's rule). */
function field(obj: Obj, name: string): unknown {
  if (Object.hasOwn(obj, name)) return obj[name];
  const lower = name.toLowerCase();
  for (const k of Object.keys(obj)) if (k.toLowerCase() === lower) return obj[k];
  return undefined;
}

/** geth's hexutil.Decode plus a length check; the reason is returned for the caller to wrap. */
function decodeFixed(s: string, size: number, what: string): Uint8Array {
  if (s.length === 0) throw new ParamError('empty hex string');
  if (!has0xPrefix(s)) throw new ParamError('hex string without 0x prefix');
  const digits = s.slice(2);
  if (!isHexDigits(digits)) throw new ParamError('invalid hex string');
  if (digits.length % 2 !== 0) throw new ParamError('hex string of odd length');
  if (digits.length !== size * 2) {
    throw new ParamError(`hex has invalid length ${digits.length / 2} after decoding; expected ${size} for ${what}`);
  }
  return hexToBytes('0x' + digits.toLowerCase());
}

function prefixed(prefix: string, f: () => Uint8Array): Uint8Array {
  try {
    return f();
  } catch (e) {
    throw e instanceof ParamError ? new ParamError(`${prefix}${e.message}`) : e;
  }
}

/** `address`: one address string or an array of them. */
function addresses(raw: unknown): Uint8Array[] {
  if (raw === undefined || raw === null) return [];
  if (typeof raw === 'string') return [prefixed('invalid address: ', () => decodeFixed(raw, 20, 'address'))];
  if (!Array.isArray(raw)) throw new ParamError('invalid addresses in query');
  const out = raw.map((a: unknown, i) => {
    if (typeof a !== 'string') throw new ParamError(`non-string address at index ${i}`);
    return prefixed(`invalid address at index ${i}: `, () => decodeFixed(a, 20, 'address'));
  });
  if (out.length > MAX_ADDRESSES) throw new ParamError('exceed max addresses');
  return out;
}

/** `topics`: positional; null or [] is a wildcard, a string one value, an array alternatives (a null inside = any). */
function topics(raw: unknown): Array<Uint8Array[] | null> {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new UnmarshalTypeError(jsonKind(raw), '[]interface {}', 'input.topics');
  if (raw.length > MAX_TOPICS) throw new ParamError('exceed max topics');
  return raw.map((pos: unknown): Uint8Array[] | null => {
    if (pos === null) return null;
    if (typeof pos === 'string') return [decodeFixed(pos, 32, 'topic')];
    if (!Array.isArray(pos)) throw new ParamError('invalid topic(s)');
    const alts: Uint8Array[] = [];
    for (const t of pos as unknown[]) {
      if (t === null) return null;
      if (typeof t !== 'string') throw new ParamError('invalid topic(s)');
      alts.push(decodeFixed(t, 32, 'topic'));
    }
    return alts.length === 0 ? null : alts;
  });
}

function bound(raw: unknown, key: string): LogCriteria['fromBlock'] {
  if (raw === undefined || raw === null) return undefined;
  try {
    return blockNumberOrTag.decode(raw) as LogCriteria['fromBlock'];
  } catch (e) {
    if (e instanceof UnmarshalTypeError) throw new UnmarshalTypeError(e.value, e.goType, `input.${key}`);
    throw e;
  }
}

/** Decodes a filter object into LogCriteria (absent fields: no constraint; bounds default later to latest). */
export function decodeLogCriteria(raw: unknown): LogCriteria {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new UnmarshalTypeError(jsonKind(raw), 'filters.FilterCriteria');
  }
  const obj = raw as Obj;
  const hashRaw = field(obj, 'blockHash');
  const fromBlock = bound(field(obj, 'fromBlock'), 'fromBlock');
  const toBlock = bound(field(obj, 'toBlock'), 'toBlock');
  const c: LogCriteria = { addresses: addresses(field(obj, 'address')), topics: topics(field(obj, 'topics')) };
  if (hashRaw !== undefined && hashRaw !== null) {
    if (fromBlock !== undefined || toBlock !== undefined) {
      throw new ParamError('cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other');
    }
    if (typeof hashRaw !== 'string') throw new UnmarshalTypeError(jsonKind(hashRaw), 'common.Hash', 'input.blockHash');
    c.blockHash = prefixed('invalid block hash: ', () => decodeFixed(hashRaw, 32, 'common.Hash'));
    return c;
  }
  if (fromBlock !== undefined) c.fromBlock = fromBlock;
  if (toBlock !== undefined) c.toBlock = toBlock;
  return c;
}

/** A log filter object → LogCriteria. */
export const logFilter: Codec<LogCriteria> = codec(decodeLogCriteria);

/** A filter or subscription id (geth rpc.ID: any string, compared case-insensitively as ids are hex). */
export const filterId: Codec<string> = codec((raw) => {
  if (typeof raw !== 'string') throw new UnmarshalTypeError(jsonKind(raw), 'rpc.ID');
  return raw.toLowerCase();
});

/** Any JSON value, decoded later by the code that knows what it means (eth_subscribe's options). */
export const anyJson: Codec<unknown> = codec((raw) => raw);

/** Decodes eth_subscribe's name and options; an unknown name is geth's -32601 "no … subscription". */
export function decodeSubscription(name: string, options: unknown): SubscriptionRequest {
  const none = () => {
    if (options !== undefined && options !== null) throw new InvalidParamsError('too many arguments, want at most 1');
  };
  const arg1 = <T>(f: () => T): T => {
    try {
      return f();
    } catch (e) {
      throw e instanceof ParamError ? new InvalidParamsError(`invalid argument 1: ${e.message}`) : e;
    }
  };
  switch (name) {
    case 'newHeads':
    case 'syncing':
      none();
      return { kind: name };
    case 'logs':
      return {
        kind: 'logs',
        criteria:
          options === undefined || options === null
            ? { addresses: [], topics: [] }
            : arg1(() => decodeLogCriteria(options)),
      };
    case 'newPendingTransactions':
      return {
        kind: 'newPendingTransactions',
        fullTx: options === undefined || options === null ? false : arg1(() => bool.decode(options)),
      };
    default:
      throw new NotificationsUnsupportedError(`no ${JSON.stringify(name)} subscription in eth namespace`);
  }
}
