// trace_ against Anvil 1.7.1 (`--hardfork osaka`): the same transactions (a deployment with value, a CREATE from a
// contract, nested calls with a caught revert and static calls, a reverting call, a value transfer, a CREATE2 with
// value, a SELFDESTRUCT) are sent from the same account at the same nonces to a fresh kestreld and to Anvil, and
// every trace_ answer Anvil serves is compared field by field. Block hashes necessarily differ (another chain) and
// are checked against each chain's own receipts instead; block numbers are compared the same way. Anvil serves no
// trace_call and no trace_replayTransaction: those are checked against Kestrel's own trace_replayBlockTransactions
// and trace_transaction answers. stateDiff is compared through trace_replayBlockTransactions.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startAnvil } from '../../bench/nodes/anvil.ts';
import type { RunningNode } from '../../bench/nodes/types.ts';
import { type KestrelNode, printLogsOnFailure, rpc, rpcResult, startNode } from '../helpers/node.ts';
import { runScenario, type Scenario } from './traceScenario.ts';

type Json = Record<string, any>;
const TXS = ['deploy', 'make', 'nested', 'boom', 'transfer', 'make2', 'destroy'] as const;
type Step = (typeof TXS)[number];
const SENDER = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';

interface Side {
  url: string;
  s: Scenario;
  receipts: Record<string, Json>;
}

/**
 * A trace with its location checked against the chain's receipt, then named by the scenario's transaction (hashes
 * and block hashes differ across chains: another chain id, other fees).
 */
function located(side: Side, traces: Json[]): Json[] {
  return traces.map((t) => {
    const name = TXS.find((x) => side.receipts[x]!.transactionHash === t.transactionHash);
    assert.ok(name, `a receipt for ${t.transactionHash}`);
    const r = side.receipts[name];
    assert.equal(t.blockHash, r!.blockHash);
    assert.equal(t.blockNumber, Number(r!.blockNumber));
    assert.equal(t.transactionPosition, Number(r!.transactionIndex));
    const { blockHash: _h, blockNumber: _n, ...rest } = t;
    return { ...rest, transactionHash: name };
  });
}

/** trace_replayBlockTransactions' entries with the transaction named as in located(). */
function named(side: Side, entries: Json[]): Json[] {
  return entries.map((e) => ({
    ...e,
    transactionHash: TXS.find((x) => side.receipts[x]!.transactionHash === e.transactionHash),
  }));
}

describe('trace_ against Anvil', () => {
  let node: KestrelNode | undefined;
  let anvil: RunningNode | undefined;
  let k: Side;
  let a: Side;
  printLogsOnFailure(() => node);

  before(async () => {
    [node, anvil] = await Promise.all([startNode(), startAnvil(['--hardfork', 'osaka'])]);
    const side = async (url: string): Promise<Side> => {
      const s = await runScenario(url);
      const receipts: Record<string, Json> = {};
      for (const t of TXS) receipts[t] = await rpcResult(url, 'eth_getTransactionReceipt', [s[t]]);
      return { url, s, receipts };
    };
    [k, a] = await Promise.all([side(node.http), side(anvil.url)]);
    // Same sender, same nonces: the same contracts on both chains (the hashes differ: chain id and fees).
    for (const x of ['parent', 'child', 'child2'] as const) assert.equal(k.s[x], a.s[x]);
  });

  after(async () => {
    await Promise.all([node?.stop(), anvil?.stop()]);
  });

  it('trace_transaction answers as Anvil for each kind of transaction', async () => {
    for (const t of TXS) {
      const [kt, at] = await Promise.all([
        rpcResult<Json[]>(k.url, 'trace_transaction', [k.s[t]]),
        rpcResult<Json[]>(a.url, 'trace_transaction', [a.s[t]]),
      ]);
      assert.deepEqual(located(k, kt), located(a, at), t);
    }
    const destroy = await rpcResult<Json[]>(k.url, 'trace_transaction', [k.s.destroy]);
    assert.deepEqual(
      destroy.map((x) => [x.type, x.traceAddress]),
      [
        ['call', []],
        ['call', [0]],
        ['suicide', [0, 0]],
      ],
    );
    const boom = await rpcResult<Json[]>(k.url, 'trace_transaction', [k.s.boom]);
    assert.deepEqual(
      boom.map((x) => x.error),
      ['Reverted', 'Reverted'],
    );
  });

  it('trace_block and trace_replayBlockTransactions answer as Anvil', async () => {
    for (const t of TXS) {
      const [kn, an] = [k.receipts[t]!.blockNumber, a.receipts[t]!.blockNumber];
      const [kb, ab] = await Promise.all([
        rpcResult<Json[]>(k.url, 'trace_block', [kn]),
        rpcResult<Json[]>(a.url, 'trace_block', [an]),
      ]);
      assert.deepEqual(located(k, kb), located(a, ab), `trace_block of ${t}`);
      const [kr, ar] = await Promise.all([
        rpcResult<Json[]>(k.url, 'trace_replayBlockTransactions', [kn, ['trace']]),
        rpcResult<Json[]>(a.url, 'trace_replayBlockTransactions', [an, ['trace']]),
      ]);
      assert.deepEqual(named(k, kr), named(a, ar), `trace_replayBlockTransactions of ${t}`);
    }
  });

  it('trace_filter answers as Anvil: ranges, addresses, after and count', async () => {
    const range = (side: Side, from: string, to: string) => ({
      fromBlock: side.receipts[from]!.blockNumber,
      toBlock: side.receipts[to]!.blockNumber,
    });
    const filters = (side: Side): Json[] => [
      range(side, 'deploy', 'destroy'),
      { ...range(side, 'make', 'boom'), after: 1, count: 2 },
      { ...range(side, 'deploy', 'destroy'), fromAddress: [side.s.parent] },
      { ...range(side, 'deploy', 'destroy'), toAddress: [side.s.child.toLowerCase()] },
      { ...range(side, 'deploy', 'destroy'), fromAddress: [side.s.parent], toAddress: [side.s.child2] },
      { ...range(side, 'deploy', 'destroy'), fromAddress: [side.s.parent], toAddress: [side.s.child2], mode: 'union' },
      {
        ...range(side, 'deploy', 'destroy'),
        fromAddress: [side.s.parent],
        toAddress: [side.s.child2],
        mode: 'intersection',
      },
      { ...range(side, 'deploy', 'destroy'), count: 0 },
      { ...range(side, 'deploy', 'destroy'), after: 100 },
    ];
    const kf = filters(k);
    const af = filters(a);
    for (let i = 0; i < kf.length; i++) {
      const [kt, at] = await Promise.all([
        rpcResult<Json[]>(k.url, 'trace_filter', [kf[i]]),
        rpcResult<Json[]>(a.url, 'trace_filter', [af[i]]),
      ]);
      assert.deepEqual(located(k, kt), located(a, at), `filter ${JSON.stringify(af[i])}`);
    }
  });

  it('stateDiff of trace_replayBlockTransactions answers as Anvil (fee accounts apart)', async () => {
    // The fee recipient differs (Anvil's zero coinbase, Kestrel's) and so do the fees the sender pays (other base
    // fees): those two balances are compared by shape only, every other field by value.
    const diffOf = async (side: Side, t: Step, types: string[]) => {
      const n = side.receipts[t]!.blockNumber;
      const block = await rpcResult(side.url, 'eth_getBlockByNumber', [n, false]);
      const [entry] = await rpcResult<Json[]>(side.url, 'trace_replayBlockTransactions', [n, types]);
      const diff = { ...entry!.stateDiff };
      const sender = SENDER.toLowerCase();
      assert.ok(diff[block.miner], `the fee recipient ${block.miner} is in the diff`);
      delete diff[block.miner];
      assert.ok(diff[sender].balance['*'], 'the sender paid fees');
      diff[sender] = { ...diff[sender], balance: 'fees' };
      return { ...entry, stateDiff: diff, transactionHash: t };
    };
    let fields = 0;
    for (const t of TXS) {
      for (const types of [['stateDiff'], ['trace', 'stateDiff']]) {
        const [kd, ad] = await Promise.all([diffOf(k, t, types), diffOf(a, t, types)]);
        assert.deepEqual(kd, ad, `${t} ${types}`);
        fields += Object.values(kd.stateDiff).length;
      }
      const { transactionHash: _h, ...fromBlock } = (
        await rpcResult<Json[]>(k.url, 'trace_replayBlockTransactions', [k.receipts[t]!.blockNumber, ['stateDiff']])
      )[0]!;
      assert.deepEqual(await rpcResult(k.url, 'trace_replayTransaction', [k.s[t], ['stateDiff']]), fromBlock);
    }
    console.log(`stateDiff: ${fields} accounts compared equal with Anvil over ${TXS.length} txs x 2 type lists`);
    // A call's diff: nested(9) rewrites the child's slot 0 from 7 to 9.
    const call = await rpcResult<Json>(k.url, 'trace_call', [
      { from: SENDER, to: k.s.parent, data: '0x10b80908' + (9).toString(16).padStart(64, '0') },
      ['stateDiff'],
      'latest',
    ]);
    assert.deepEqual(call.trace, []);
    assert.deepEqual(call.stateDiff[k.s.child.toLowerCase()].storage, {
      ['0x' + '00'.repeat(32)]: { '*': { from: '0x' + '7'.padStart(64, '0'), to: '0x' + '9'.padStart(64, '0') } },
    });
  });

  it('trace_replayTransaction and trace_call agree with the block replay (Anvil serves neither)', async () => {
    const block = await rpcResult<Json[]>(k.url, 'trace_replayBlockTransactions', [
      k.receipts.nested!.blockNumber,
      ['trace'],
    ]);
    const { transactionHash: _h, ...fromBlock } = block[0]!;
    assert.deepEqual(await rpcResult(k.url, 'trace_replayTransaction', [k.s.nested, ['trace']]), fromBlock);
    // boom() called on the head state: the same frames as the mined boom transaction, gas apart.
    const call = await rpcResult<Json>(k.url, 'trace_call', [
      { from: '0x90F79bf6EB2c4f870365E785982E1f101E93b906', to: k.s.parent, data: '0xa169ce09', gas: '0x100000' },
      ['trace'],
      'latest',
    ]);
    assert.equal(call.stateDiff, null);
    assert.equal(call.vmTrace, null);
    assert.deepEqual(
      call.trace.map((t: Json) => [t.type, t.action.callType, t.error, t.traceAddress, t.subtraces]),
      [
        ['call', 'call', 'Reverted', [], 1],
        ['call', 'staticcall', 'Reverted', [0], 0],
      ],
    );
    assert.equal(call.trace[0].action.gas, '0x' + (0x100000 - 21_064).toString(16));
    assert.match(call.output, /^0x08c379a0/);
  });

  it('refuses bad input with a clear error', async () => {
    const cases: Array<[string, unknown[], RegExp]> = [
      ['trace_replayTransaction', [k.s.nested, ['vmTrace', 7]], /unknown trace type 7/],
      ['trace_replayTransaction', [k.s.nested, ['bogus']], /unknown trace type "bogus"/],
      ['trace_call', [{ to: k.s.parent }, 'trace'], /cannot unmarshal string/],
      ['trace_filter', [{ fromBlock: '0x0', toBlock: '0x0', count: -1 }], /invalid count -1/],
      ['trace_filter', [{ fromBlock: '0x0', toBlock: '0x100000' }], /header not found|too large/],
      ['trace_transaction', ['0x12'], /hex string has length 2/],
    ];
    for (const [method, params, re] of cases) {
      const r = await rpc(k.url, method, params);
      assert.ok(r.error, `${method} ${JSON.stringify(params)} fails`);
      assert.match(r.error.message, re, method);
    }
    assert.equal(await rpcResult(k.url, 'trace_transaction', ['0x' + '00'.repeat(32)]), null);
    assert.equal(await rpcResult(k.url, 'trace_block', ['0xffffff']), null);
    assert.deepEqual(await rpcResult(k.url, 'trace_block', ['0x0']), []);
  });
});
