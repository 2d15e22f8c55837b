import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidParamsError } from '../../errors/index.ts';
import { decodeParams } from './codec.ts';
import { DEFAULT_TRACE_TIMEOUT_MS, traceCallConfig, traceConfig } from './traceConfig.ts';

const one = (raw: unknown) =>
  decodeParams(raw === undefined ? [] : [raw], [traceConfig])[0] as ReturnType<typeof traceConfig.decode>;

function rejects(raw: unknown, message: string): void {
  assert.throws(
    () => one(raw),
    (e: unknown) => e instanceof InvalidParamsError && e.message === `invalid argument 0: ${message}`,
  );
}

describe('traceConfig codec', () => {
  it('absent or null → geth defaults (struct logger, 5s)', () => {
    for (const raw of [undefined, null, {}]) {
      const c = one(raw);
      assert.equal(c.tracer, undefined);
      assert.equal(c.timeoutMs, DEFAULT_TRACE_TIMEOUT_MS);
      assert.deepEqual(
        [c.disableStack, c.disableStorage, c.enableMemory, c.enableReturnData, c.limit],
        [false, false, false, false, 0],
      );
      assert.deepEqual(c.tracerConfig, {});
    }
  });

  it('decodes every field; unknown fields are ignored', () => {
    const c = one({
      tracer: 'callTracer',
      tracerConfig: { onlyTopCall: true },
      timeout: '1m30s',
      disableStack: true,
      disableStorage: true,
      enableMemory: true,
      enableReturnData: true,
      limit: 10,
      reexec: 128,
      debug: true,
      whatever: 1,
    });
    assert.equal(c.tracer, 'callTracer');
    assert.deepEqual(c.tracerConfig, { onlyTopCall: true });
    assert.equal(c.timeoutMs, 90_000); // the node's tracer-timeout-cap is applied later, by the trace service
    assert.deepEqual(
      [c.disableStack, c.disableStorage, c.enableMemory, c.enableReturnData, c.limit],
      [true, true, true, true, 10],
    );
    assert.equal(one({ timeout: '250ms' }).timeoutMs, 250);
    assert.equal(one({ timeout: '0s' }).timeoutMs, 1);
    assert.equal(one({ tracer: '' }).tracer, undefined);
  });

  it("accepts Ethermint's string-encoded tracerConfig", () => {
    assert.deepEqual(one({ tracerConfig: '{"diffMode":true}' }).tracerConfig, { diffMode: true });
  });

  it("rejects wrong types with encoding/json's wording", () => {
    rejects('x', 'json: cannot unmarshal string into Go value of type tracers.TraceConfig');
    rejects(
      { disableStack: 'yes' },
      'json: cannot unmarshal string into Go struct field TraceConfig.disableStack of type bool',
    );
    rejects({ tracer: 5 }, 'json: cannot unmarshal number into Go struct field TraceConfig.tracer of type string');
    rejects({ limit: 1.5 }, 'json: cannot unmarshal number 1.5 into Go struct field TraceConfig.limit of type int');
    rejects({ limit: -1 }, 'output limit cannot be negative, got -1');
    rejects({ timeout: 'soon' }, 'time: invalid duration "soon"');
    rejects({ timeout: 5 }, 'json: cannot unmarshal number into Go struct field TraceConfig.timeout of type string');
    rejects(
      { tracerConfig: [1] },
      'json: cannot unmarshal array into Go struct field TraceConfig.tracerConfig of type object',
    );
  });

  it('TraceCallConfig decodes state/block overrides', () => {
    const d = (raw: unknown) => decodeParams([raw], [traceCallConfig])[0] as ReturnType<typeof traceCallConfig.decode>;
    const A = '0x' + '11'.repeat(20);
    assert.equal(d({}).overrides, undefined);
    assert.deepEqual(d({ stateOverrides: {} }).overrides, { state: [] });
    const st = d({
      stateOverrides: {
        [A]: { balance: '0x5', stateDiff: { ['0x' + '00'.repeat(31) + '01']: '0x' + '00'.repeat(31) + '02' } },
      },
    }).overrides!;
    assert.equal(st.state![0]!.balance, 5n);
    assert.equal(st.state![0]!.stateDiff![0]![1][31], 2);
    assert.equal(d({ blockOverrides: { number: '0x1' } }).overrides!.block!.number, 1n);
    assert.throws(() => d({ stateOverrides: { '0x00': {} } }), /invalid argument 0: .*TraceCallConfig.stateOverrides/);
  });
});
