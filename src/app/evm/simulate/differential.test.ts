// eth_simulateV1 on Kestrel's engine against the ethereumjs simulator it replaced (test/helpers/simulateOracle.ts),
// on the same archived state: seeded random requests (chained blocks with block and state overrides, moved
// precompiles, value transfers, creations, self-destructs, reverts, out-of-gas, refunds, BLOCKHASH, validation
// on and off, traceTransfers) must give the same blocks (hashes, so state roots), call results and errors.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import {
  addr,
  BASE_NUMBER,
  bytes,
  COINBASE,
  EOA,
  hex,
  openSimulateFixture,
  precompile,
  SENDERS,
  SIM,
  type SimulateFixture,
  word,
} from '../../../../test/helpers/simulateFixture.ts';
import { prng as rng } from '../../../../test/helpers/random.ts';
import type { CallRequest } from '../../../primitives/callRequest.ts';
import type { AccountOverride, BlockOverrides } from '../../../primitives/overrides.ts';
import type { SimBlockInput } from './plan.ts';
import type { SimBlockResult, SimulateOptions } from './simulator.ts';

/** Everything a result says, as comparable JSON (bytes as hex, bigints as strings). */
function normal(r: SimBlockResult[] | Error): unknown {
  if (r instanceof Error) return { error: r.name, reason: (r as { reason?: string }).reason, message: r.message };
  return JSON.parse(
    JSON.stringify(
      r.map((b) => ({
        hash: b.block.hash,
        header: b.block.header.toJSON(),
        size: b.block.size,
        txHashes: b.block.txHashes,
        calls: b.calls,
      })),
      (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? hex(v) : v),
    ),
  );
}

describe('eth_simulateV1 on the engine = the ethereumjs simulator', () => {
  let fx: SimulateFixture;
  let sim: SimulateFixture['sim'];
  let simCode: Uint8Array;
  before(async () => {
    fx = await openSimulateFixture();
    ({ sim, simCode } = fx);
  });

  async function both(opts: SimulateOptions, gasCap = 200_000_000n): Promise<[unknown, unknown]> {
    const engine = await fx.engine(opts, gasCap).catch((e: Error) => e);
    const oracle = await fx.oracle(opts, gasCap).catch((e: Error) => e);
    return [normal(engine), normal(oracle)];
  }

  /** A random call of the Sim contract (or a plain transfer, or a creation). */
  function randomCall(r: () => number, validation: boolean, nonces: Map<string, bigint>): CallRequest {
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
    const from = pick(SENDERS);
    const req: CallRequest = { from, to: SIM };
    const k = BigInt(Math.floor(r() * 6));
    const kind = Math.floor(r() * 13);
    switch (kind) {
      case 0:
        req.data = bytes(sim.encodeFunctionData('set', [k, BigInt(Math.floor(r() * 1000))]));
        if (r() < 0.5) req.value = BigInt(Math.floor(r() * 1000));
        break;
      case 1:
        req.data = bytes(sim.encodeFunctionData('clear', [k]));
        break;
      case 2:
        req.data = bytes(sim.encodeFunctionData('env', []));
        break;
      case 3:
        req.data = bytes(sim.encodeFunctionData('forward', [pick([hex(EOA), hex(addr(0xd1)), hex(SIM)])]));
        req.value = BigInt(Math.floor(r() * 10_000));
        break;
      case 4:
        req.data = bytes(sim.encodeFunctionData('fail', [BigInt(Math.floor(r() * 4))]));
        break;
      case 5:
        req.data = bytes(sim.encodeFunctionData('burn', [BigInt(Math.floor(r() * 40))]));
        if (r() < 0.4) req.gas = 30_000n + BigInt(Math.floor(r() * 40_000));
        break;
      case 6:
        req.data = bytes(sim.encodeFunctionData('make', [k]));
        req.value = r() < 0.5 ? 123n : 0n;
        break;
      case 7:
        req.data = bytes(sim.encodeFunctionData('hash', [hex(word(k))]));
        break;
      case 8:
        req.data = bytes(sim.encodeFunctionData('bal', [pick([hex(COINBASE), hex(EOA), hex(from)])]));
        break;
      case 9:
        // A plain transfer to an EOA (or to a fresh address).
        req.to = pick([EOA, addr(0xd2)]);
        req.value = BigInt(Math.floor(r() * 1e6));
        break;
      case 10:
        // A creation of a Sim copy from its runtime code prefixed by a tiny deployer (CODECOPY+RETURN).
        delete req.to;
        req.data = deployer(simCode);
        break;
      case 11:
        req.data = bytes(
          sim.encodeFunctionData('inner', [hex(SIM), sim.encodeFunctionData('fail', [BigInt(Math.floor(r() * 4))])]),
        );
        req.value = r() < 0.3 ? 77n : 0n;
        break;
      default:
        req.data = bytes(sim.encodeFunctionData('kill', [pick([hex(EOA), hex(addr(0xd3))])]));
    }
    if (req.gas === undefined && r() < 0.7) req.gas = 300_000n + BigInt(Math.floor(r() * 700_000));
    // Under validation a call must pay at least the base fee.
    const fees = validation ? 1 + Math.floor(r() * 2) : Math.floor(r() * 3);
    if (fees === 1) req.gasPrice = 10_000_000_000n + BigInt(Math.floor(r() * 1e9));
    if (fees === 2) {
      req.maxFeePerGas = 20_000_000_000n;
      req.maxPriorityFeePerGas = BigInt(Math.floor(r() * 2e9));
    }
    if (validation) {
      const key = hex(from);
      const n = nonces.get(key) ?? 3n;
      req.nonce = n;
      nonces.set(key, n + 1n);
    } else if (r() < 0.1) req.nonce = 99n;
    return req;
  }

  function randomRequest(seed: number): SimulateOptions {
    const r = rng(seed);
    const validation = r() < 0.3;
    const nonces = new Map<string, bigint>();
    const blocks: SimBlockInput[] = [];
    const count = 1 + Math.floor(r() * 3);
    let number = BASE_NUMBER;
    for (let b = 0; b < count; b++) {
      const o: BlockOverrides = {};
      if (r() < 0.3) o.number = number + 1n + BigInt(Math.floor(r() * 3));
      number = o.number ?? number + 1n;
      if (r() < 0.3) o.feeRecipient = addr(0xe0 + b);
      if (r() < 0.3) o.baseFeePerGas = BigInt(Math.floor(r() * 3)) * 1_000_000_000n;
      if (r() < 0.2) o.prevRandao = word(BigInt(seed) * 7n + BigInt(b));
      if (r() < 0.2) o.blobBaseFee = 5n;
      if (r() < 0.2) o.withdrawals = [{ index: 0n, validatorIndex: 1n, address: addr(0xf1), amount: 1000n }];
      const overrides: AccountOverride[] = [];
      if (r() < 0.3) overrides.push({ address: EOA, balance: BigInt(Math.floor(r() * 1e18)) });
      if (r() < 0.2) overrides.push({ address: addr(0x77), code: simCode, stateDiff: [[word(2n), word(5n)]] });
      if (r() < 0.2) overrides.push({ address: SIM, state: [[word(3n), word(9n)]] });
      if (r() < 0.2) overrides.push({ address: SIM, stateDiff: [[word(4n), word(0n)]], nonce: 5n });
      if (r() < 0.2) overrides.push({ address: precompile(2), movePrecompileTo: addr(0x99) });
      if (r() < 0.1) overrides.push({ address: addr(0x88), balance: 0n });
      const calls: CallRequest[] = [];
      const n = Math.floor(r() * 5);
      for (let i = 0; i < n; i++) calls.push(randomCall(r, validation, nonces));
      const block: SimBlockInput = { calls };
      if (Object.keys(o).length > 0) block.blockOverrides = o;
      if (overrides.length > 0) {
        // One override per address (geth refuses duplicates at parse time).
        const seen = new Set<string>();
        block.stateOverrides = overrides.filter((x) => !seen.has(hex(x.address)) && seen.add(hex(x.address)));
      }
      blocks.push(block);
    }
    return { blocks, traceTransfers: r() < 0.5, validation };
  }

  it('agrees on 150 seeded random requests', async () => {
    const failures: string[] = [];
    const seen = { refused: 0, blocks: 0, calls: 0, failed: 0, logs: 0, transfers: 0 };
    for (let seed = 1; seed <= 150; seed++) {
      const [engine, oracle] = await both(randomRequest(seed));
      count(engine, seen);
      if (process.env.SIM_DIFF_DEBUG) console.log(seed, JSON.stringify(seen));
      try {
        assert.deepEqual(engine, oracle);
      } catch (e) {
        failures.push(`seed ${seed}: ${(e as Error).message.slice(0, 2000)}`);
      }
    }
    assert.deepEqual(failures, []);
    // The generator must keep exercising what it is for (counts as of this writing, with a margin).
    assert.ok(seen.refused >= 2 && seen.refused <= 30, `refused ${seen.refused}`);
    assert.ok(seen.calls >= 300, `calls ${seen.calls}`);
    assert.ok(seen.failed >= 40, `failed calls ${seen.failed}`);
    assert.ok(seen.transfers >= 30, `transfer logs ${seen.transfers}`);
    assert.ok(seen.logs >= 100, `logs ${seen.logs}`);
  });

  it('agrees when the gas cap runs out mid-request', async () => {
    const call = (): CallRequest => ({ from: SENDERS[0], to: SIM, data: bytes(sim.encodeFunctionData('burn', [30n])) });
    const opts: SimulateOptions = {
      blocks: [{ calls: [call(), call()] }, { calls: [call()] }],
      traceTransfers: false,
      validation: false,
    };
    for (const cap of [60_000n, 150_000n, 400_000n]) {
      const [engine, oracle] = await both(opts, cap);
      assert.deepEqual(engine, oracle, `cap ${cap}`);
    }
  });

  it('agrees over 40 chained blocks (each block state root written over its parent root)', async () => {
    const r = rng(4242);
    const nonces = new Map<string, bigint>();
    const blocks: SimBlockInput[] = [];
    for (let b = 0; b < 40; b++) {
      const block: SimBlockInput = { calls: [0, 1, 2].map(() => randomCall(r, false, nonces)) };
      // Storage replaced, then written, then replaced again: the later blocks must see each block's own result.
      if (b % 7 === 3) block.stateOverrides = [{ address: SIM, state: [[word(BigInt(b)), word(1n)]] }];
      if (b % 11 === 5) block.stateOverrides = [{ address: EOA, balance: 0n, nonce: 0n }];
      blocks.push(block);
    }
    const [engine, oracle] = await both({ blocks, traceTransfers: true, validation: false });
    assert.equal((engine as unknown[]).length, 40);
    assert.deepEqual(engine, oracle);
  });

  it('agrees on the error texts of a top-level bad jump and a failing precompile', async () => {
    const call = (to: Uint8Array, data = new Uint8Array(0)): CallRequest => ({
      from: SENDERS[1]!,
      to,
      gas: 100_000n,
      data,
    });
    const opts: SimulateOptions = {
      blocks: [
        {
          // PUSH1 5; JUMP (no JUMPDEST at 5), then a failing BN254 pairing (input not a multiple of 192 bytes).
          stateOverrides: [{ address: addr(0x66), code: bytes('0x600556') }],
          calls: [call(addr(0x66)), call(precompile(8), new Uint8Array(100).fill(1))],
        },
      ],
      traceTransfers: true,
      validation: false,
    };
    const [engine, oracle] = await both(opts);
    assert.deepEqual(engine, oracle);
    const errors = (engine as Array<{ calls: Array<{ error?: { message: string } }> }>)[0]!.calls.map(
      (c) => c.error?.message,
    );
    assert.match(errors[0]!, /^vm execution error: invalid JUMP at 0x[0-9a-f]{64}\/0x6{40}:2$/);
    assert.equal(errors[1], 'vm execution error: invalid input length');
  });

  it('agrees on a sender with code calling itself (no EIP-3607 check in simulation; its code runs)', async () => {
    const opts: SimulateOptions = {
      blocks: [
        {
          stateOverrides: [{ address: SENDERS[0]!, code: simCode }],
          calls: [{ from: SENDERS[0]!, to: SENDERS[0]!, data: bytes(sim.encodeFunctionData('set', [1n, 2n])) }],
        },
        { calls: [{ from: SENDERS[0]!, to: SENDERS[0]!, data: bytes(sim.encodeFunctionData('m', [1n])) }] },
      ],
      traceTransfers: true,
      validation: false,
    };
    const [engine, oracle] = await both(opts);
    assert.deepEqual(engine, oracle);
    const blocks = engine as Array<{ calls: Array<{ logs: unknown[]; returnData: string }> }>;
    assert.equal(blocks[0]!.calls[0]!.logs.length, 1);
    assert.equal(BigInt(blocks[1]!.calls[0]!.returnData), 2n);
  });

  it('maxUsedGas is the gas before refunds, the EIP-3529 cap applied (ethereumjs added the uncapped counter)', async () => {
    // Code that clears Sim's four preset slots: 21000 + 4 × (3 + 3 + 2100 + 2900) = 41024 gas before refunds;
    // 4 × 4800 refunded, capped at 41024 / 5 = 8204.
    const clearAll = bytes('0x' + [2, 3, 4, 5].map((k) => `6000600${k}55`).join('') + '00');
    const call = (data: Uint8Array): CallRequest => ({ from: SENDERS[0]!, to: SIM, gas: 200_000n, data });
    const opts: SimulateOptions = {
      blocks: [{ stateOverrides: [{ address: SIM, code: clearAll }], calls: [call(new Uint8Array(0))] }],
      traceTransfers: false,
      validation: false,
    };
    const [engine, oracle] = (await both(opts)) as Array<
      Array<{ calls: Array<{ gasUsed: string; maxUsedGas: string }> }>
    >;
    assert.deepEqual(engine![0]!.calls[0], { ...oracle![0]!.calls[0]!, maxUsedGas: '41024' });
    assert.equal(engine![0]!.calls[0]!.gasUsed, String(41024 - 8204));
    assert.equal(oracle![0]!.calls[0]!.maxUsedGas, String(41024 - 8204 + 19200));
    // Where the EIP-7623 floor is what the call pays (2000 non-zero calldata bytes: 21000 + 10 × 8000), both
    // answer the floor.
    const floored: SimulateOptions = {
      ...opts,
      blocks: [{ ...opts.blocks[0]!, calls: [call(new Uint8Array(2000).fill(1))] }],
    };
    const [e2, o2] = await both(floored);
    assert.deepEqual(e2, o2);
    const c2 = (e2 as Array<{ calls: Array<{ gasUsed: string; maxUsedGas: string }> }>)[0]!.calls[0]!;
    assert.deepEqual([c2.gasUsed, c2.maxUsedGas], ['101000', '101000']);
  });

  it("ends an endless call at the request timeout with geth's error", async () => {
    const opts: SimulateOptions = {
      blocks: [
        {
          blockOverrides: { gasLimit: 10n ** 12n },
          // JUMPDEST; PUSH1 0; JUMP as init code: loops until the gas or the deadline runs out.
          calls: [{ from: SENDERS[0]!, data: bytes('0x5b600056') }],
        },
      ],
      traceTransfers: true,
      validation: false,
    };
    const t0 = Date.now();
    await assert.rejects(fx.engine(opts, 0n, 200), {
      name: 'ExecutionError',
      message: 'execution aborted (timeout = 0.2s)',
    });
    assert.ok(Date.now() - t0 < 5000);
  });
});

/** Counts what a normalised answer holds. */
function count(
  answer: unknown,
  seen: { refused: number; blocks: number; calls: number; failed: number; logs: number; transfers: number },
): void {
  if (!Array.isArray(answer)) {
    seen.refused++;
    return;
  }
  for (const b of answer as Array<{ calls: Array<{ status: number; logs: Array<{ address: string }> }> }>) {
    seen.blocks++;
    for (const c of b.calls) {
      seen.calls++;
      if (c.status === 0) seen.failed++;
      seen.logs += c.logs.length;
      seen.transfers += c.logs.filter((l) => l.address === '0x' + 'ee'.repeat(20)).length;
    }
  }
}

/** Init code that returns `runtime` (PUSH2 len, DUP1, PUSH1 12, PUSH1 0, CODECOPY, PUSH1 0, RETURN, then the code). */
function deployer(runtime: Uint8Array): Uint8Array {
  const n = runtime.length;
  const head = Uint8Array.of(0x61, n >> 8, n & 0xff, 0x80, 0x60, 0x0c, 0x60, 0x00, 0x39, 0x60, 0x00, 0xf3);
  const out = new Uint8Array(head.length + n);
  out.set(head);
  out.set(runtime, head.length);
  return out;
}
