// Tracing on Kestrel's engine against the oracle it replaced: the same transactions (nested calls, reverts,
// creations, out-of-gas, precompiles, SSTORE refunds, self-destruct) traced through the engine's hook
// (driver.ts) and through @ethereumjs/evm's events with the former driver (test/helpers/ethereumjsTraceDriver.ts).
// Every built-in tracer and a JS tracer that records everything it can see must print the same JSON.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { getCreateAddress, Interface } from 'ethers';
import { compileSource } from '../../test/helpers/solc.ts';
import {
  COINBASE,
  firstDifference,
  type PreAccount,
  type Scenario,
  SENDER,
  traceOnEngine,
  traceOnEthereumjs,
} from '../../test/helpers/traceOracle.ts';
import { initEngine } from '../evm/index.ts';
import { bytesToBigint, bytesToHex, hexToBytes } from '../primitives/hex.ts';
import { formatTrace } from '../rpc/namespaces/debug/format.ts';
import { CallTracer } from './callTracer.ts';
import { JsTracer } from './js/jsTracer.ts';
import { SandboxHost } from './js/sandbox.ts';
import { PrestateTracer } from './prestateTracer.ts';
import { FourByteTracer } from './smallTracers.ts';
import { OutputBudget, StructLogger } from './structLogger.ts';
import type { Tracer } from './types.ts';

const SOURCE = `
pragma solidity ^0.8.20;
contract Child {
  event Poked(uint256 v);
  uint256 public x;
  function boom() external pure { revert("child says no"); }
  function poke(uint256 v) external returns (uint256) { x = v; emit Poked(v); return v * 2; }
  function spin() external { while (true) { x++; } }
  function bad() external { assembly { invalid() } }
}
contract Lib {
  uint256 public x;
  function setX(uint256 v) external { x = v; }
}
contract Temp {
  function die(address payable to) external { selfdestruct(to); }
}
contract Parent {
  uint256 public x;
  uint256 public y;
  Child public child;
  Lib public lib;
  event Done(uint256 n);
  function run(uint256 v) external returns (uint256 r) {
    r = child.poke(v);
    try child.boom() {} catch {}
    (bool ok, ) = address(lib).delegatecall(abi.encodeCall(Lib.setX, (r + 1)));
    require(ok, "delegatecall");
    new Child();
    emit Done(r * 3);
  }
  function oog() external {
    (bool ok, ) = address(child).call{gas: 30000}(abi.encodeCall(Child.spin, ()));
    require(!ok);
    try child.bad() {} catch {}
    x = 1;
  }
  function precompiles(bytes calldata d) external returns (bytes32 h, address a, bool ok) {
    h = sha256(d);
    a = ecrecover(bytes32(uint256(1)), 27, bytes32(uint256(2)), bytes32(uint256(3)));
    (ok, ) = address(4).staticcall(d);
    (ok, ) = address(8).staticcall(hex"01");
  }
  function refunds() external { x = 0; y = 5; y = 0; }
  function pay(address payable to) external payable { to.transfer(msg.value); }
  function makeAndKill() external { Temp t = new Temp{salt: bytes32(uint256(9))}(); t.die(payable(msg.sender)); }
}`;

const at = (n: number): Uint8Array => new Uint8Array(20).map((_, i) => (i === 19 ? n : i === 0 ? 0xa0 : 0));
const precompile = (n: number): Uint8Array => new Uint8Array(20).map((_, i) => (i === 19 ? n : 0));
const [PARENT, CHILD, LIB, RAW, PAYEE, WRITER, STATIC] = [at(1), at(2), at(3), at(4), at(5), at(6), at(7)];

const { Parent, Child, Lib } = compileSource(SOURCE, 'Differential.sol');
const parentAbi = new Interface(Parent!.abi);
const childAbi = new Interface(Child!.abi);
const word = (a: Uint8Array): bigint => bytesToBigint(a);

const PRE: PreAccount[] = [
  { address: SENDER, balance: 10n ** 20n, nonce: 3n },
  { address: COINBASE, balance: 1n },
  {
    address: PARENT,
    code: hexToBytes(Parent!.deployedBytecode),
    nonce: 1n,
    storage: [
      [0n, 7n],
      [2n, word(CHILD)],
      [3n, word(LIB)],
    ],
  },
  { address: CHILD, code: hexToBytes(Child!.deployedBytecode), nonce: 1n, storage: [[0n, 3n]] },
  { address: LIB, code: hexToBytes(Lib!.deployedBytecode), nonce: 1n },
  // PUSH1 1 PUSH1 0 MSTORE, then a jump to a non-JUMPDEST.
  { address: RAW, code: hexToBytes('0x600160005260055600') },
  // WRITER: SSTORE(0, 1). STATIC: STATICCALL(gas, WRITER) (a write in a static frame), then RETURNDATACOPY of a
  // byte the empty return data does not have.
  { address: WRITER, code: hexToBytes('0x6001600055') },
  {
    address: STATIC,
    code: hexToBytes(`0x600060006000600073${Buffer.from(WRITER).toString('hex')}5afa506001600060003e00`),
  },
];

/** A scenario, with accounts added to the shared pre-state for it alone. */
type Case = Scenario & { extra?: PreAccount[] };

const SCENARIOS: Case[] = [
  { name: 'nested CALL, reverted STATICCALL, DELEGATECALL, CREATE, logs', to: PARENT, data: enc('run', [7]) },
  { name: 'out of gas and an invalid opcode in inner frames', to: PARENT, data: enc('oog', []) },
  { name: 'precompiles (one failing)', to: PARENT, data: enc('precompiles', ['0x0102030405']) },
  { name: 'SSTORE refunds', to: PARENT, data: enc('refunds', []) },
  {
    name: 'a value transfer to a new account',
    to: PARENT,
    data: enc('pay', ['0x' + Buffer.from(PAYEE).toString('hex')]),
    value: 5n,
  },
  { name: 'CREATE2 and SELFDESTRUCT', to: PARENT, data: enc('makeAndKill', []) },
  { name: 'a top-level creation', data: hexToBytes(Child!.bytecode) },
  {
    name: 'a top-level creation that collides',
    data: hexToBytes(Child!.bytecode),
    // Where the sender's creation lands (nonce 3): an existing nonce makes it collide.
    extra: [{ address: hexToBytes(getCreateAddress({ from: bytesToHex(SENDER), nonce: 3 })), nonce: 1n }],
  },
  { name: 'a top-level creation that reverts', data: hexToBytes('0x60aa60005260206000fd') },
  { name: 'a top-level revert with a reason', to: CHILD, data: hexToBytes(childAbi.encodeFunctionData('boom')) },
  { name: 'a top-level out of gas', to: PARENT, data: enc('run', [7]), gas: 60_000n },
  { name: 'a bad jump', to: RAW, data: new Uint8Array(0) },
  { name: 'a write in a static frame, RETURNDATACOPY out of bounds', to: STATIC, data: new Uint8Array(0) },
  { name: 'a precompile called directly', to: precompile(2), data: Uint8Array.of(1, 2) },
  { name: 'a failing precompile called directly', to: precompile(8), data: Uint8Array.of(1) },
];

function enc(fn: string, args: unknown[]): Uint8Array {
  return hexToBytes(parentAbi.encodeFunctionData(fn, args));
}

/** A JS tracer recording everything a step, a frame and the result show (not ctx.time: it is a wall time). */
const RECORDER = `{
  log: [],
  step: function (log, db) {
    var s = [log.op.toString(), log.getPC(), log.getGas(), log.getCost(), log.getDepth(), log.getRefund(), log.stack.length(), log.memory.length()];
    if (log.stack.length() > 0) s.push(log.stack.peek(0).toString(16));
    if (log.op.toString() === 'SLOAD') s.push(toHex(db.getState(log.contract.getAddress(), toWord(log.stack.peek(0).toString(16)))));
    if (log.op.toString() === 'BALANCE' || log.op.toString() === 'CALL') s.push(db.getBalance(toAddress(log.stack.peek(1).toString(16))).toString());
    this.log.push(s.join(' '));
  },
  fault: function (log, db) { this.log.push('fault ' + log.getError() + ' ' + log.op.toString() + ' ' + log.getPC()); },
  enter: function (f) { this.log.push(['enter', f.getType(), toHex(f.getFrom()), toHex(f.getTo()), toHex(f.getInput()), f.getGas(), f.getValue() === undefined ? '-' : f.getValue().toString()].join(' ')); },
  exit: function (r) { this.log.push(['exit', r.getGasUsed(), toHex(r.getOutput()), r.getError()].join(' ')); },
  result: function (ctx, db) {
    return { log: this.log, ctx: [ctx.type, toHex(ctx.from), ctx.to && toHex(ctx.to), toHex(ctx.input), ctx.gas, ctx.gasPrice, ctx.value.toString(),
      ctx.block, toHex(ctx.output), ctx.gasUsed, ctx.intrinsicGas, ctx.error], nonce: db.getNonce(ctx.from), bal: db.getBalance(ctx.from).toString() };
  } }`;

const host = new SandboxHost();

const TRACERS: Array<[string, () => Promise<Tracer>]> = [
  [
    'struct logger',
    async () =>
      new StructLogger(
        { disableStack: false, disableStorage: false, enableMemory: true, enableReturnData: true, limit: 0 },
        new OutputBudget(0),
      ),
  ],
  ['callTracer', async () => new CallTracer({ onlyTopCall: false, withLog: true })],
  ['prestateTracer', async () => new PrestateTracer({ diffMode: false, disableCode: false, disableStorage: false })],
  [
    'prestateTracer diffMode',
    async () => new PrestateTracer({ diffMode: true, disableCode: false, disableStorage: false }),
  ],
  ['4byteTracer', async () => new FourByteTracer()],
  ['JS tracer', () => JsTracer.create(host, RECORDER, {}, Date.now() + 60_000)],
];

describe('tracing on the engine equals tracing on ethereumjs', () => {
  before(async () => {
    await initEngine();
    await host.warm();
  });

  for (const s of SCENARIOS) {
    it(s.name, async () => {
      for (const [name, make] of TRACERS) {
        const [a, b] = [await make(), await make()];
        try {
          const want = formatTrace(await traceOnEthereumjs([...PRE, ...(s.extra ?? [])], s, a));
          const got = formatTrace(traceOnEngine([...PRE, ...(s.extra ?? [])], s, b));
          const d = firstDifference(got, want, '');
          if (d !== undefined && process.env.DIFF_DUMP && name === 'struct logger') {
            const idx = Number(/structLogs\.(\d+)/.exec(d)?.[1] ?? 0);
            const pick = (t: any) =>
              t.structLogs
                .slice(Math.max(0, idx - 4), idx + 2)
                .map((l: any) => [l.pc, l.op, l.gas, l.gasCost, l.refund, l.depth]);
            console.log(JSON.stringify({ engine: pick(got), ethereumjs: pick(want) }));
          }
          assert.equal(d, undefined, `${name}: ${d}`);
        } finally {
          for (const t of [a, b]) if (t instanceof JsTracer) t.close();
        }
      }
    });
  }
});
