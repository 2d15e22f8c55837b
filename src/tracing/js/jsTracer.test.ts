import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { snapshotStep } from '../driver.ts';
import type { StepEvent, TxEnv } from '../types.ts';
import { JsTracer } from './jsTracer.ts';
import { SandboxHost } from './sandbox.ts';

const A = new Uint8Array(20).fill(0xaa);
const B = new Uint8Array(20).fill(0xbb);
const frame = {
  depth: 0,
  type: 'CALL' as const,
  from: B,
  to: A,
  self: A,
  caller: B,
  input: Uint8Array.of(1, 2, 3, 4),
  gas: 1000n,
  value: 5n,
};
const step = (op: number, opName: string, stack: bigint[], memory = new Uint8Array(64).fill(7)): StepEvent =>
  snapshotStep(
    { pc: 9, op, opName, gas: 1000n, cost: 3n, depth: 1, refund: 4n, frame, returnData: new Uint8Array(0) },
    stack,
    memory,
  );
const env: TxEnv = {
  from: B,
  to: A,
  value: 5n,
  input: frame.input,
  gasLimit: 50_000n,
  gasPrice: 7n,
  intrinsicGas: 21_064n,
  blockNumber: 12n,
  timestamp: 1n,
  coinbase: new Uint8Array(20),
  state: {
    account: (a) =>
      a[0] === 0xaa
        ? { nonce: 3n, balance: 10n ** 30n, codeHash: new Uint8Array(32), storageRoot: new Uint8Array(32) }
        : undefined,
    code: () => Uint8Array.of(0x60, 0x00),
    storage: (_a, s) => Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? s[31]! + 1 : 0)),
  },
  isPrecompile: (a) => a.every((b, i) => (i === 19 ? b === 1 : b === 0)),
};

async function run(host: SandboxHost, src: string, steps: StepEvent[], timeoutMs = 20_000): Promise<unknown> {
  const t = await JsTracer.create(host, src, { k: 'v' }, Date.now() + timeoutMs);
  try {
    t.txStart(env);
    for (const s of steps) t.step(s);
    t.txEnd({ gasUsed: 30_000n, failed: false, returnValue: Uint8Array.of(0xde, 0xad) });
    return (t.result() as { value: unknown }).value;
  } finally {
    t.close();
  }
}

describe('JsTracer (QuickJS sandbox)', () => {
  const host = new SandboxHost();
  before(() => host.warm()); // compiling QuickJS takes seconds on a loaded machine; no tracer deadline should pay for it

  it('exposes log, db, ctx and the helpers with geth semantics', async () => {
    const src = `{ out: {}, setup: function (c) { this.out.cfg = JSON.parse(c).k; },
      step: function (log, db) {
        var o = this.out;
        o.op = log.op.toString(); o.num = log.op.toNumber(); o.push = log.op.isPush();
        o.peek0 = log.stack.peek(0); o.peek1hex = log.stack.peek(1).toString(16); o.len = log.stack.length();
        o.mem = toHex(log.memory.slice(0, 2)); o.word = log.memory.getUint(0).toString(16).length; o.memLen = log.memory.length();
        o.addr = toHex(log.contract.getAddress()); o.caller = toHex(log.contract.getCaller());
        o.value = log.contract.getValue().toString(); o.input = toHex(log.contract.getInput());
        o.pc = log.getPC(); o.gas = log.getGas(); o.cost = log.getCost(); o.depth = log.getDepth(); o.refund = log.getRefund();
        o.err = log.getError();
        o.bal = db.getBalance(log.contract.getAddress()).toString(); o.nonce = db.getNonce(toHex(log.contract.getAddress()));
        o.code = toHex(db.getCode(log.contract.getAddress())); o.state = toHex(db.getState(log.contract.getAddress(), toWord('0x05')));
        o.exists = [db.exists(log.contract.getAddress()), db.exists(log.contract.getCaller())];
      },
      fault: function () {},
      result: function (ctx) {
        var o = this.out;
        o.ctx = [ctx.type, toHex(ctx.from), toHex(ctx.to), ctx.gas, ctx.gasPrice, ctx.value.toString(), ctx.block, toHex(ctx.output), ctx.gasUsed, ctx.intrinsicGas, typeof ctx.time];
        o.helpers = [toHex(toAddress('0x' + 'ab'.repeat(20))), toHex(toContract('0x' + '00'.repeat(20), 0)),
          toHex(toContract2('0x' + '00'.repeat(20), '0x00', '0x00')), isPrecompiled('0x0000000000000000000000000000000000000001'),
          isPrecompiled(toAddress('0x' + 'ab'.repeat(20))), toHex(slice(toWord('0x0102'), 30, 32))];
        o.big = [bigInt(10).add(5).multiply(2).toString(), bigInt('ff', 16).toString(), bigInt(7).compare(8), bigInt(0).isZero(), bigInt('0x10').toJSNumber() + 1];
        return o;
      } }`;
    const r = (await run(host, src, [step(0x60, 'PUSH1', [1n, 255n, 2n ** 200n])])) as Record<string, unknown>;
    assert.equal(r.cfg, 'v');
    assert.deepEqual(
      [r.op, r.num, r.push, r.peek0, r.peek1hex, r.len],
      ['PUSH1', 0x60, true, (2n ** 200n).toString(), 'ff', 3],
    );
    assert.deepEqual([r.mem, r.word, r.memLen], ['0x0707', 63, 64]);
    assert.deepEqual(
      [r.addr, r.caller, r.value, r.input],
      [`0x${'aa'.repeat(20)}`, `0x${'bb'.repeat(20)}`, '5', '0x01020304'],
    );
    assert.deepEqual([r.pc, r.gas, r.cost, r.depth, r.refund, r.err], [9, 1000, 3, 1, 4, undefined]);
    assert.deepEqual(
      [r.bal, r.nonce, r.code, r.state, r.exists],
      [(10n ** 30n).toString(), 3, '0x6000', `0x${'00'.repeat(31)}06`, [true, false]],
    );
    assert.deepEqual(r.ctx, [
      'CALL',
      `0x${'bb'.repeat(20)}`,
      `0x${'aa'.repeat(20)}`,
      50000,
      7,
      '5',
      12,
      '0xdead',
      30000,
      21064,
      'string',
    ]);
    assert.deepEqual(r.helpers, [
      `0x${'ab'.repeat(20)}`,
      '0xbd770416a3345f91e4b34576cb804a576fa48eb1',
      '0x4d1a2e2bb4f88f0250f26ffff098b0b30b26bf38',
      true,
      false,
      '0x0102',
    ]);
    assert.deepEqual(r.big, ['30', '255', -1, true, 17]);
  });

  it('reports out-of-bounds access and tracer exceptions in geth wording', async () => {
    const oob = '{step: function(log) { log.stack.peek(3); }, fault: function() {}, result: function() {}}';
    await assert.rejects(run(host, oob, [step(1, 'ADD', [1n, 2n])]), {
      message: "Error: tracer accessed out of bound stack: size 2, index 3    in server-side tracer function 'step'",
    });
    const mem = '{step: function(log) { log.memory.slice(60, 70); }, fault: function() {}, result: function() {}}';
    await assert.rejects(run(host, mem, [step(1, 'ADD', [])]), {
      message:
        "Error: tracer accessed out of bound memory: available 64, offset 60, size 10    in server-side tracer function 'step'",
    });
    const thrown = '{step: function() {}, fault: function() {}, result: function() { throw new TypeError("nope"); }}';
    await assert.rejects(run(host, thrown, []), {
      message: "TypeError: nope    in server-side tracer function 'result'",
    });
    await assert.rejects(run(host, '{result: function() {}, fault: function() {}, enter: function() {}}', []), {
      message: 'Error: trace object must expose either both or none of enter() and exit()',
    });
  });

  it('stops an endless tracer at the deadline and never exposes the host', async () => {
    const t0 = Date.now();
    await assert.rejects(
      run(
        host,
        '{step: function() { for (;;) {} }, fault: function() {}, result: function() {}}',
        [step(1, 'ADD', [])],
        200,
      ),
      { message: 'execution timeout' },
    );
    assert.ok(Date.now() - t0 < 5000);
    const probe =
      '{result: function() { return [typeof process, typeof require, typeof __h, typeof __install, typeof Function("return this")().process]; }, fault: function() {}}';
    assert.deepEqual(await run(host, probe, []), ['undefined', 'undefined', 'undefined', 'function', 'undefined']);
  });

  it('frees every sandbox (hundreds of tracers, including failing ones, in one WebAssembly instance)', async () => {
    for (let i = 0; i < 200; i++) {
      const src =
        i % 2
          ? '{step: function() {}}'
          : '{n: 0, step: function(log) { this.n += log.stack.length(); }, fault: function() {}, result: function() { return this.n; }}';
      if (i % 2) await assert.rejects(run(host, src, []));
      else assert.equal(await run(host, src, [step(1, 'ADD', [1n, 2n])]), 2);
    }
  });
});
