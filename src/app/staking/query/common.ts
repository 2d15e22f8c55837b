// What the staking, distribution and slashing query services share: the keepers at the queried block (a scratch
// copy, so a query that computes — rewards end a period — changes nothing), handlers routed by gRPC method path as
// the bank's are (gRPC and abci_query both reach them through KestrelApp.query), bech32 addresses with the chain's
// prefixes and the SDK's error wording, and the protobuf shapes of times, decimals and pages.
import { InvalidParamsError } from '../../../errors/index.ts';
import { decodeAccAddress, toBech32 } from '../../../primitives/bech32.ts';
import type { BlockRecord } from '../../../store/records.ts';
import type { QueryModule } from '../../bank/query.ts';
import type { PageResponse } from '../../bank/proto.ts';
import type { Modules } from '../modules.ts';

/** The modules over the state a block committed. */
export type ModulesAt = (block: BlockRecord) => Modules;

/** One method: protobuf request bytes and the modules at the queried block → protobuf response bytes. */
export type Handler = (data: Uint8Array, m: Modules) => Uint8Array;

/** A query service whose methods are `prefix + name`. */
export class ModuleQueries implements QueryModule {
  constructor(
    readonly prefix: string,
    private readonly modulesAt: ModulesAt,
    private readonly handlers: Readonly<Record<string, Handler>>,
  ) {}

  /** The method names this service answers (the gRPC server registers exactly these). */
  methods(): string[] {
    return Object.keys(this.handlers);
  }

  /** Runs the handler of `path` on a request at `block`. */
  async query(path: string, data: Uint8Array, block: BlockRecord): Promise<Uint8Array> {
    const name = path.startsWith(this.prefix) ? path.slice(this.prefix.length) : '';
    const h = Object.hasOwn(this.handlers, name) ? this.handlers[name] : undefined;
    if (h === undefined) throw new InvalidParamsError(`unknown query path ${path}`);
    return h(data, this.modulesAt(block));
  }
}

/** Bech32 forms of the chain's three address kinds: accounts, validator operators (valoper), consensus (valcons). */
export class Bech32Codec {
  readonly valoper: string;
  readonly valcons: string;

  constructor(readonly account: string) {
    this.valoper = `${account}valoper`;
    this.valcons = `${account}valcons`;
  }

  /** An account address; `empty` is the SDK's message for an empty string. */
  acc(text: string, empty: string): Uint8Array {
    return decode(text, this.account, empty);
  }

  /** A validator operator address. */
  val(text: string, empty: string): Uint8Array {
    return decode(text, this.valoper, empty);
  }

  /** A consensus address. */
  cons(text: string, empty: string): Uint8Array {
    return decode(text, this.valcons, empty);
  }

  /** Account bytes as bech32. */
  accString(b: Uint8Array): string {
    return toBech32(b, this.account);
  }

  /** Operator bytes as a valoper address. */
  valString(b: Uint8Array): string {
    return toBech32(b, this.valoper);
  }

  /** Consensus-address bytes as a valcons address. */
  consString(b: Uint8Array): string {
    return toBech32(b, this.valcons);
  }
}

// The SDK returns the address codec's own error (AccAddressFromBech32 wording); over gRPC it is a bad argument.
function decode(text: string, prefix: string, empty: string): Uint8Array {
  if (text === '') throw new InvalidParamsError(empty);
  try {
    return decodeAccAddress(text, prefix);
  } catch (e) {
    throw new InvalidParamsError((e as Error).message);
  }
}

/** A google.protobuf.Timestamp of whole unix seconds (0 is the SDK's "unset", time.Unix(0, 0)). */
export function timestamp(seconds: bigint): { seconds: bigint; nanos: number } {
  return { seconds, nanos: 0 };
}

/** A google.protobuf.Duration of whole seconds. */
export function duration(seconds: bigint): { seconds: bigint; nanos: number } {
  return { seconds, nanos: 0 };
}

/** DecCoins of one denom: empty when zero, as the SDK's sanitized DecCoins are. */
export function decCoins(denom: string, amount: bigint): Array<{ denom: string; amount: string }> {
  return amount === 0n ? [] : [{ denom, amount: amount.toString() }];
}

/** The SDK's store-key form of a pagination key: each address length-prefixed (address.MustLengthPrefix). */
export function pageKey(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + 1 + p.length, 0));
  let i = 0;
  for (const p of parts) {
    out[i++] = p.length;
    out.set(p, i);
    i += p.length;
  }
  return out;
}

/** The PageResponse message (always present, as the SDK sets it). */
export function pageResponse(res: PageResponse): { nextKey: Uint8Array; total: bigint } {
  return { nextKey: res.nextKey ?? new Uint8Array(0), total: res.total };
}

/** Byte order, the order of the SDK's store iterators. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}
