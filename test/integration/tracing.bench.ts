// Trace timings of a ~1M-gas transaction (not part of `npm test`; speed is never asserted in tests).
// Run: node --import tsx test/integration/tracing.bench.ts
// The transaction hashes in a loop (memory grows with every abi.encode, as real contracts' memory does) and calls
// another contract every 8th round, so every tracer has frames, stack, memory and storage to look at.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Interface } from 'ethers';
import { nonCoinbaseAccounts } from '../helpers/accounts.ts';
import { rpc, rpcResult, startNode } from '../helpers/node.ts';
import { compileSource } from '../helpers/solc.ts';
import { sendTx } from '../helpers/tx.ts';
import { DEFAULT_SANDBOX_LIMITS } from '../../src/tracing/js/limits.ts';
import { TracerWorkers } from '../../src/tracing/worker/pool.ts';

const SOURCE = `
pragma solidity ^0.8.20;
contract Sink {
  uint256 public n;
  function hit(uint256 v) external returns (uint256) { n += v; return n; }
}
contract Heavy {
  Sink public sink;
  constructor() { sink = new Sink(); }
  function run(uint256 rounds) external returns (bytes32 acc) {
    for (uint256 i = 0; i < rounds; i++) {
      acc = keccak256(abi.encode(acc, i));
      if (i % 8 == 0) sink.hit(i);
    }
  }
}`;
const CALL_TARGETS =
  '{data: [], fault: function(log) {}, step: function(log) { if(log.op.toString() == "CALL") this.data.push(toHex(toAddress(log.stack.peek(1).toString(16)))); }, result: function() { return this.data; }}';
const EMPTY_STEP =
  '{n: 0, fault: function() {}, step: function(log) { this.n++; }, result: function() { return this.n; }}';

/** CPU time (user + system, ms) of a process, all threads included (the machine is shared: wall time is noisy). */
function cpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}

// Worker startup: from new Worker() to ready (TypeScript loader, EVM modules, QuickJS compiled), 3 cold starts.
for (let i = 0; i < 3; i++) {
  const pool = new TracerWorkers({
    evmChainId: 9000n,
    fork: 'Osaka',
    gasCap: 50_000_000n,
    sandbox: DEFAULT_SANDBOX_LIMITS,
    readNode: () => undefined,
    hashOf: () => undefined,
    size: 1,
    heapMb: 384,
  });
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await pool.session(async () => {});
  const c = process.cpuUsage(c0);
  console.log(
    `worker startup: wall ${(performance.now() - t0).toFixed(0)} ms, CPU ${((c.user + c.system) / 1000).toFixed(0)} ms`,
  );
  pool.close();
}

// The default struct logs of a 1M-gas transaction are tens of MB of JSON: above the default reply cap, raised here.
let node = await startNode();
const toml = join(node.home, 'config', 'app.toml');
writeFileSync(
  toml,
  readFileSync(toml, 'utf8').replace(/^max-response-bytes = \d+$/m, `max-response-bytes = ${1 << 30}`),
);
node = await node.restart();
try {
  const coinbase = await rpcResult<string>(node.http, 'eth_coinbase');
  const key = nonCoinbaseAccounts(coinbase)[0]!.privateKey;
  const { Heavy } = compileSource(SOURCE, 'Heavy.sol');
  const abi = new Interface(Heavy!.abi);
  const heavy = (await sendTx(node.http, key, { to: null, data: Heavy!.bytecode, gas: 2_000_000n })).receipt
    .contractAddress;
  // Memory cost grows faster than linearly: aim at 1M gas in a few proportional steps.
  let rounds = 200;
  for (let i = 0; i < 4; i++) {
    const gas = await rpcResult<string>(node.http, 'eth_estimateGas', [
      { to: heavy, data: abi.encodeFunctionData('run', [rounds]) },
    ]);
    rounds = Math.floor((rounds * 1_000_000) / Number(BigInt(gas)));
  }
  const tx = await sendTx(node.http, key, {
    to: heavy,
    data: abi.encodeFunctionData('run', [rounds]),
    gas: 2_000_000n,
  });
  console.log(`tx: ${rounds} rounds, gasUsed ${BigInt(tx.receipt.gasUsed)}`);
  const time = async (label: string, cfg: unknown): Promise<{ ms: number; result: any }> => {
    let best = Infinity;
    let bestCpu = Infinity;
    let result: any;
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      const c0 = cpuMs(node.proc.pid!);
      const r = await rpc(node.http, 'debug_traceTransaction', [tx.hash, cfg], { timeoutMs: 300_000 });
      bestCpu = Math.min(bestCpu, cpuMs(node.proc.pid!) - c0);
      best = Math.min(best, performance.now() - t0);
      if (r.error) throw new Error(`${label}: ${r.error.message}`);
      result = r.result;
    }
    console.log(
      `${label.padEnd(34)} wall ${best.toFixed(0).padStart(7)} ms   node CPU ${bestCpu.toFixed(0).padStart(7)} ms`,
    );
    return { ms: bestCpu, result };
  };
  /** The longest eth_blockNumber wait while one trace runs: how long the trace holds the node's event loop. */
  const stall = async (label: string, cfg: unknown): Promise<void> => {
    let done = false;
    let worst = 0;
    const pinging = (async () => {
      while (!done) {
        const t0 = performance.now();
        await rpcResult(node.http, 'eth_blockNumber');
        worst = Math.max(worst, performance.now() - t0);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    await rpc(node.http, 'debug_traceTransaction', [tx.hash, cfg], { timeoutMs: 300_000 });
    done = true;
    await pinging;
    console.log(`${label.padEnd(34)} longest eth_blockNumber meanwhile ${worst.toFixed(0).padStart(6)} ms`);
  };
  const timeout = '120s';
  const struct = await time('struct logger (default)', { timeout });
  const steps = struct.result.structLogs.length;
  console.log(`steps: ${steps}`);
  await time('struct logger, disableStack', { timeout, disableStack: true, disableStorage: true });
  await stall('struct logger, disableStack', { timeout, disableStack: true, disableStorage: true });
  await stall('callTracer', { timeout, tracer: 'callTracer' });
  await time('callTracer', { timeout, tracer: 'callTracer' });
  await time('prestateTracer', { timeout, tracer: 'prestateTracer' });
  const noop = await time('noopTracer', { timeout, tracer: 'noopTracer' });
  const targets = await time('JS: collect CALL targets', { timeout, tracer: CALL_TARGETS });
  console.log(`  (${targets.result.length} CALL targets)`);
  const empty = await time('JS: step counter', { timeout, tracer: EMPTY_STEP });
  console.log(
    `sandbox per-step overhead: ${(((empty.ms - noop.ms) * 1000) / steps).toFixed(2)} µs/step (node CPU: step counter vs noopTracer)`,
  );
} finally {
  await node.dispose();
}
