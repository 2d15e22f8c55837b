// trace_replay*'s vmTrace (OpenEthereum's format). Anvil serves no replay method, so the 7-transaction trace
// scenario is checked against Kestrel's own debug_traceTransaction struct logs (same opcodes, pcs, costs and gas),
// and a small creation is checked against an answer worked out by hand from OpenEthereum's rules.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type KestrelNode, printLogsOnFailure, rpc, rpcResult, startNode } from '../helpers/node.ts';
import { runScenario, type Scenario } from './traceScenario.ts';

type Json = Record<string, any>;
const TXS = ['deploy', 'make', 'nested', 'boom', 'transfer', 'make2', 'destroy'] as const;
const SENDER = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const CALLS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL']);
const CREATES = new Set(['CREATE', 'CREATE2']);

/** The vmTrace's opcodes in execution order (each opcode followed by its sub-frame's), with their depth. */
function flatten(t: Json, depth = 1, out: Array<{ op: Json; depth: number }> = []): Array<{ op: Json; depth: number }> {
  for (const op of t.ops) {
    out.push({ op, depth });
    if (op.sub) flatten(op.sub, depth + 1, out);
  }
  return out;
}

describe('trace_ vmTrace', () => {
  let node: KestrelNode | undefined;
  let url: string;
  let s: Scenario;
  printLogsOnFailure(() => node);

  before(async () => {
    node = await startNode();
    url = node.http;
    s = await runScenario(url);
  });

  after(async () => {
    await node?.stop();
  });

  it('follows the struct logs of debug_traceTransaction opcode by opcode for each scenario transaction', async (t) => {
    let checked = 0;
    for (const name of TXS) {
      const [replay, debug] = await Promise.all([
        rpcResult<Json>(url, 'trace_replayTransaction', [s[name], ['vmTrace']]),
        rpcResult<Json>(url, 'debug_traceTransaction', [s[name], { enableMemory: true }]),
      ]);
      const logs: Json[] = debug.structLogs;
      const ops = flatten(replay.vmTrace);
      assert.equal(ops.length, logs.length, `${name}: one op per struct log`);
      assert.deepEqual(
        ops.map((o) => [o.op.pc, o.op.op, o.depth]),
        logs.map((l) => [l.pc, l.op, l.depth]),
        `${name}: pcs, opcodes and depths`,
      );
      for (let i = 0; i < logs.length; i++) {
        const { op } = ops[i]!;
        const log = logs[i]!;
        const next = logs[i + 1];
        const where = `${name} #${i} ${log.op}`;
        const entered = next !== undefined && next.depth > log.depth;
        assert.equal(op.sub !== null, entered, `${where}: sub exactly when a frame opened`);
        if (entered)
          assert.ok(CALLS.has(log.op) || CREATES.has(log.op), `${where}: only calls and creates open frames`);
        // A creation's cost holds the gas handed to the init code (a call's already does in geth's struct log).
        const handed = CREATES.has(log.op) && entered ? next.gas : 0;
        assert.equal(op.cost, log.gasCost + handed, `${where}: cost`);
        if (op.ex === null) {
          assert.ok(log.error, `${where}: no execution record only for a failed opcode`);
          continue;
        }
        // The frame's next opcode shows what this one left: the gas, the pushed words, the written memory.
        const resume = logs.slice(i + 1).find((l) => l.depth <= log.depth);
        if (entered) {
          assert.equal(op.ex.used, resume!.gas, `${where}: used is the gas left after the callee returned`);
        } else {
          assert.equal(op.ex.used, log.gas - log.gasCost, `${where}: used = gas - cost`);
        }
        if (resume && resume.depth === log.depth) {
          const top = resume.stack.slice(resume.stack.length - op.ex.push.length);
          assert.deepEqual(op.ex.push, top, `${where}: push is the top of the next stack`);
          if (/^(PUSH|DUP|SWAP)/.test(log.op) || CALLS.has(log.op) || CREATES.has(log.op)) {
            const n = log.op === 'PUSH0' ? 1 : Number(log.op.replace(/\D/g, '') || 0);
            const want = log.op.startsWith('PUSH') || CALLS.has(log.op) || CREATES.has(log.op) ? 1 : n + 1;
            assert.equal(op.ex.push.length, want, `${where}: number of pushed words`);
          }
          if (log.op === 'MSTORE') {
            const off = Number(BigInt(log.stack[log.stack.length - 1]));
            const mem = (resume.memory as string[])
              .map((w) => w.replace(/^0x/, ''))
              .join('')
              .slice(off * 2, off * 2 + 64);
            assert.deepEqual(op.ex.mem, { off, data: '0x' + mem }, `${where}: mem`);
          }
        }
        if (log.op === 'SSTORE') {
          const [val, key] = log.stack.slice(-2);
          assert.deepEqual(op.ex.store, { key, val }, `${where}: store`);
        } else {
          assert.equal(op.ex.store, null, `${where}: store only for SSTORE`);
        }
        checked++;
      }
    }
    // deploy, make, nested, boom, make2 and destroy run code; the transfer runs none.
    assert.ok(checked > 1000, `checked ${checked} ops`);
    t.diagnostic(`${checked} ops checked against struct logs`);
    const transfer = await rpcResult<Json>(url, 'trace_replayTransaction', [s.transfer, ['vmTrace']]);
    assert.deepEqual(transfer.vmTrace, { code: '0x', ops: [] });
  });

  it('gives each frame its code, nested under the opcode that opened it', async () => {
    const r = await rpcResult<Json>(url, 'trace_replayTransaction', [s.nested, ['trace', 'vmTrace']]);
    const parentCode = await rpcResult<string>(url, 'eth_getCode', [s.parent, 'latest']);
    const childCode = await rpcResult<string>(url, 'eth_getCode', [s.child, 'latest']);
    assert.equal(r.vmTrace.code, parentCode);
    const subs = r.vmTrace.ops.filter((o: Json) => o.sub !== null);
    // set(), fail() (pure: a static call that reverts, caught) and v(): three frames running the child's code.
    assert.deepEqual(
      subs.map((o: Json) => [o.op, o.sub.code === childCode, o.ex.push]),
      [
        ['CALL', true, ['0x1']],
        ['STATICCALL', true, ['0x0']],
        ['STATICCALL', true, ['0x1']],
      ],
    );
    assert.equal(r.trace.length, 4);
    // A creation's frame runs its init code: make() opens a CREATE whose sub holds the Child's init code.
    const make = await rpcResult<Json>(url, 'trace_replayTransaction', [s.make, ['vmTrace']]);
    const create = make.vmTrace.ops.find((o: Json) => o.op === 'CREATE');
    assert.ok(create.sub.code.length > childCode.length);
    assert.ok(create.sub.code.includes(childCode.slice(2)), 'init code holds the runtime code');
    assert.deepEqual(create.ex.push, [s.child.toLowerCase().replace(/^0x0*/, '0x')]);
    // The block replay gives the same vmTrace.
    const block = await rpcResult<Json[]>(url, 'trace_replayBlockTransactions', [
      (await rpcResult<Json>(url, 'eth_getTransactionReceipt', [s.nested])).blockNumber,
      ['vmTrace'],
    ]);
    assert.deepEqual(block[0]!.vmTrace, r.vmTrace);
    assert.deepEqual(block[0]!.trace, []);
  });

  it('answers a small creation exactly as worked out by hand', async () => {
    // PUSH1 0x2a PUSH1 0 MSTORE PUSH1 7 PUSH1 1 SSTORE PUSH1 0x20 PUSH1 0 RETURN
    const init = '0x602a600052600760015560206000f3';
    const r = await rpcResult<Json>(url, 'trace_call', [{ from: SENDER, data: init, gas: '0x100000' }, ['vmTrace']]);
    // Intrinsic gas: 21000 + 32000 (creation) + 13 non-zero bytes × 16 + 2 zero bytes × 4 + 1 init-code word × 2.
    const g = 0x100000 - (21_000 + 32_000 + 13 * 16 + 2 * 4 + 2);
    const op = (pc: number, name: string, cost: number, used: number, push: string[], extra: Json = {}) => ({
      pc,
      op: name,
      cost,
      ex: { push, mem: null, store: null, used, ...extra },
      sub: null,
    });
    const word42 = '0x' + '00'.repeat(31) + '2a';
    assert.deepEqual(r.vmTrace, {
      code: init,
      ops: [
        op(0, 'PUSH1', 3, g - 3, ['0x2a']),
        op(2, 'PUSH1', 3, g - 6, ['0x0']),
        // 3 + one word of memory expansion (3); the word written at 0.
        op(4, 'MSTORE', 6, g - 12, [], { mem: { off: 0, data: word42 } }),
        op(5, 'PUSH1', 3, g - 15, ['0x7']),
        op(7, 'PUSH1', 3, g - 18, ['0x1']),
        // A cold slot (2,100) set from zero (20,000).
        op(9, 'SSTORE', 22_100, g - 22_118, [], { store: { key: '0x1', val: '0x7' } }),
        op(10, 'PUSH1', 3, g - 22_121, ['0x20']),
        op(12, 'PUSH1', 3, g - 22_124, ['0x0']),
        op(14, 'RETURN', 0, g - 22_124, []),
      ],
    });
    assert.equal(r.output, '0x' + '00'.repeat(31) + '2a');
  });

  it('gives a precompile call no sub, and its return region and the gas left after it', async () => {
    // STATICCALL(gas, identity 0x04, in 0..32, out 0..32) then STOP.
    const init = '0x60206000602060006004' + '5afa00';
    const r = await rpcResult<Json>(url, 'trace_call', [{ from: SENDER, data: init, gas: '0x100000' }, ['vmTrace']]);
    const ops = r.vmTrace.ops;
    assert.deepEqual(
      ops.map((o: Json) => o.op),
      ['PUSH1', 'PUSH1', 'PUSH1', 'PUSH1', 'PUSH1', 'GAS', 'STATICCALL', 'STOP'],
    );
    const call = ops[6];
    assert.equal(call.sub, null);
    assert.deepEqual(call.ex.push, ['0x1']);
    assert.deepEqual(call.ex.mem, { off: 0, data: '0x' + '00'.repeat(32) });
    // used is what is left once the precompile returned its unused gas: STOP (cost 0) starts with it.
    assert.equal(call.ex.used, ops[7].ex.used);
    assert.equal(ops[5].ex.push[0], '0x' + (ops[5].ex.used as number).toString(16));
  });

  it('marks a failed opcode with no execution record', async () => {
    // PUSH1 1 JUMP: a bad jump destination.
    const r = await rpcResult<Json>(url, 'trace_call', [
      { from: SENDER, data: '0x600156', gas: '0x100000' },
      ['vmTrace'],
    ]);
    assert.equal(r.vmTrace.ops.length, 2);
    assert.deepEqual(r.vmTrace.ops[0].ex.push, ['0x1']);
    assert.equal(r.vmTrace.ops[1].op, 'JUMP');
    assert.equal(r.vmTrace.ops[1].ex, null);
    const bad = await rpc(url, 'trace_replayTransaction', [s.nested, ['vmtrace']]);
    assert.match(bad.error!.message, /unknown trace type "vmtrace"/);
  });
});
