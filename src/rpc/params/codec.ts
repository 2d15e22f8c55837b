// Codec primitives: each codec turns one raw JSON value into a typed value or throws InvalidParamsError.
import { InvalidParamsError } from '../../errors/index.ts';

/** Decodes one positional JSON-RPC parameter. `required=false` lets it be absent (undefined or missing). */
export interface Codec<T> {
  readonly required: boolean;
  /** Decodes a present (non-undefined) raw value; throws ParamError with the reason only. */
  decode(raw: unknown): T;
  /** Value used when an optional param is missing or null. */
  readonly fallback?: () => T;
}

/** A decode failure reason; decodeParams prefixes it with "invalid argument N: ". */
export class ParamError extends Error {
  override name = 'ParamError';
}

/** Builds a required codec from a decode function. */
export function codec<T>(decode: (raw: unknown) => T): Codec<T> {
  return { required: true, decode };
}

/** Makes a codec optional; a missing or null value yields `fallback()` (or undefined). */
export function optional<T>(c: Codec<T>): Codec<T | undefined>;
export function optional<T>(c: Codec<T>, fallback: () => T): Codec<T>;
export function optional<T>(c: Codec<T>, fallback?: () => T): Codec<T | undefined> {
  return { required: false, decode: c.decode, fallback: fallback ?? (() => undefined) };
}

/** Decodes a positional param list against codecs, with geth's error messages. */
export function decodeParams(params: unknown[], codecs: readonly Codec<unknown>[]): unknown[] {
  if (params.length > codecs.length) {
    throw new InvalidParamsError(`too many arguments, want at most ${codecs.length}`);
  }
  // Sized once: pushing onto an empty array grows its store on the first push (most methods take 1-3 params).
  const out = new Array<unknown>(codecs.length);
  for (let i = 0; i < codecs.length; i++) {
    const c = codecs[i]!;
    const raw = params[i];
    if (raw === undefined || (raw === null && !c.required)) {
      if (c.required) throw new InvalidParamsError(`missing value for required argument ${i}`);
      out[i] = c.fallback ? c.fallback() : undefined;
      continue;
    }
    try {
      out[i] = c.decode(raw);
    } catch (e) {
      if (e instanceof ParamError) throw new InvalidParamsError(`invalid argument ${i}: ${e.message}`);
      throw e;
    }
  }
  return out;
}
