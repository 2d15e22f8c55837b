// eth_simulateV1 in-process, Kestrel's engine beside the ethereumjs simulator it replaced, on the same archived
// state (test/helpers/simulateFixture.ts): one request of 3 blocks × 10 calls (storage writes with events, value
// forwarding, a creation, hashing loops, block-environment reads), without and with traceTransfers. CPU time per
// request (process.cpuUsage), after a warm-up. Run: node --import tsx bench/simulate.ts [iterations]
import { bytes, EOA, openSimulateFixture, SENDERS, SIM, word } from '../test/helpers/simulateFixture.ts';
import type { CallRequest } from '../src/primitives/callRequest.ts';
import type { SimulateOptions } from '../src/app/evm/simulate/simulator.ts';

const iterations = Number(process.argv[2] ?? 30);
const fx = await openSimulateFixture();
const { sim } = fx;

function calls(block: number): CallRequest[] {
  const from = SENDERS[block % SENDERS.length]!;
  const c = (data: string, value?: bigint): CallRequest => ({
    from,
    to: SIM,
    data: bytes(data),
    ...(value !== undefined && { value }),
  });
  return [
    c(sim.encodeFunctionData('set', [BigInt(block), 42n]), 5n),
    c(sim.encodeFunctionData('set', [BigInt(block + 10), 43n])),
    c(sim.encodeFunctionData('env', [])),
    c(sim.encodeFunctionData('forward', ['0x' + Buffer.from(EOA).toString('hex')]), 1000n),
    c(sim.encodeFunctionData('burn', [10n])),
    c(sim.encodeFunctionData('make', [7n]), 3n),
    c(sim.encodeFunctionData('hash', [word(BigInt(block))])),
    c(sim.encodeFunctionData('bal', ['0x' + Buffer.from(EOA).toString('hex')])),
    c(sim.encodeFunctionData('clear', [BigInt(block)])),
    { from, to: EOA, value: 10n ** 15n },
  ];
}

const request = (traceTransfers: boolean): SimulateOptions => ({
  blocks: [0, 1, 2].map((b) => ({ calls: calls(b) })),
  traceTransfers,
  validation: false,
});

async function cpuPerRequest(run: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 5; i++) await run();
  const t0 = process.cpuUsage();
  for (let i = 0; i < iterations; i++) await run();
  const t = process.cpuUsage(t0);
  return (t.user + t.system) / 1000 / iterations;
}

for (const traceTransfers of [false, true]) {
  const opts = request(traceTransfers);
  const engine = await cpuPerRequest(() => fx.engine(opts));
  const oracle = await cpuPerRequest(() => fx.oracle(opts));
  console.log(
    `3 blocks × 10 calls, traceTransfers ${traceTransfers}: engine ${engine.toFixed(2)} ms CPU, ` +
      `ethereumjs ${oracle.toFixed(2)} ms CPU (${(oracle / engine).toFixed(1)}×)`,
  );
}

// A long request: 256 blocks × 39 creations (each block's state root over its parent's, so the cost is linear).
const long: SimulateOptions = {
  blocks: Array.from({ length: 256 }, (_, b) => ({
    calls: Array.from({ length: 39 }, (_, i) => ({
      from: SENDERS[i % SENDERS.length]!,
      to: SIM,
      gas: 200_000n,
      data: bytes(sim.encodeFunctionData('make', [BigInt(b * 100 + i + 1)])),
    })),
  })),
  traceTransfers: false,
  validation: false,
};
const t0 = process.cpuUsage();
await fx.engine(long, 10n ** 12n);
const t = process.cpuUsage(t0);
console.log(`256 blocks × 39 creations: engine ${((t.user + t.system) / 1000).toFixed(0)} ms CPU`);
