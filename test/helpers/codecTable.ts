// Table-driven tests for RPC param codecs: each row is an input and either the decoded value or fail(message).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ParamError, type Codec } from '../../src/rpc/params/codec.ts';

/** An expected ParamError message in a table row. */
export class Fail {
  constructor(readonly message: string) {}
}

/** Marks a row that must fail with exactly this ParamError message. */
export const fail = (message: string): Fail => new Fail(message);

/** One table row. */
export type Case<T> = [input: unknown, expected: T | Fail];

/** Runs a table: Fail rows expect that exact ParamError message, other rows deepEqual the decoded value. */
export function table<T>(c: Codec<T>, cases: Case<T>[]): void {
  for (const [input, expected] of cases) {
    it(JSON.stringify(input, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)) ?? String(input), () => {
      if (expected instanceof Fail) {
        assert.throws(
          () => c.decode(input),
          (e: unknown) => {
            assert.ok(e instanceof ParamError, `not a ParamError: ${String(e)}`);
            assert.equal(e.message, expected.message);
            return true;
          },
        );
      } else {
        assert.deepEqual(c.decode(input), expected);
      }
    });
  }
}
