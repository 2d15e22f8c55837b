// Interpreter dispatch: CPU time of one call running a 200,000-iteration loop of cheap mixed opcodes (stack,
// arithmetic, memory words, environment reads, JUMPI), the cost the switch itself dominates. With checkout
// directories as arguments the runs alternate between them, so a before/after pair shares the machine's load:
//   node --import tsx bench/dispatch.ts [--rounds 3] [DIR ...]   (no DIR: this checkout)
import path from 'node:path';
import { parseArgs } from 'node:util';
import { testBlock, testTx } from '../src/evm/testing/engine-inputs.testing.ts';
import { REPO_ROOT } from './nodes/paths.ts';

const { values, positionals } = parseArgs({
  options: { rounds: { type: 'string', default: '3' } },
  allowPositionals: true,
});
const dirs = positionals.length > 0 ? positionals.map((d) => path.resolve(d)) : [REPO_ROOT];

const LOOPS = 200_000;
const BODY = [
  ['80', '6003', '16', '50'], // DUP1 PUSH1 3 AND POP
  ['80', '80', '02', '50'], // DUP1 DUP1 MUL POP
  ['80', '6000', '52'], // DUP1 PUSH1 0 MSTORE
  ['6000', '51', '50'], // PUSH1 0 MLOAD POP
  ['80', '15', '50'], // DUP1 ISZERO POP
  ['80', '6008', '1b', '50'], // DUP1 PUSH1 8 SHL POP
  ['3a', '50', '30', '50'], // GASPRICE POP ADDRESS POP
  ['80', '6005', '10', '50'], // DUP1 PUSH1 5 LT POP
  ['80', '6007', '18', '50'], // DUP1 PUSH1 7 XOR POP
].flat();
// PUSH3 LOOPS; JUMPDEST (pc 4); BODY; PUSH1 1 SWAP1 SUB DUP1 PUSH1 4 JUMPI; STOP
const CODE_HEX = `62${LOOPS.toString(16).padStart(6, '0')}5b${BODY.join('')}600190038060045700`;

type Engine = typeof import('../src/evm/index.ts');
type Reader = typeof import('../src/evm/testing/mem-reader.testing.ts');

/** Loads `dir`'s engine and returns a function timing one loop call (CPU ms). */
async function loader(dir: string): Promise<() => number> {
  const evm = (await import(path.join(dir, 'src/evm/index.ts'))) as Engine;
  const { MemReader } = (await import(path.join(dir, 'src/evm/testing/mem-reader.testing.ts'))) as Reader;
  await evm.initEngine();
  const to = 0xc0den;
  const code = Uint8Array.from(CODE_HEX.match(/../g)!.map((b) => parseInt(b, 16)));
  const reader = new MemReader().set(to, { code }).set(0xaan, { balance: 10n ** 20n });
  const block = testBlock({ chainId: 9000n });
  const tx = testTx({ from: 0xaan, to, gasLimit: 500_000_000n });
  const opts = { fork: 'Prague', rules: { burnBaseFee: false }, isCall: true } as const;
  const once = (): number => {
    const t0 = process.cpuUsage();
    const r = evm.executeTransaction(new evm.WorldState(reader), block, tx, opts);
    const u = process.cpuUsage(t0);
    if (!r.ok || r.result.status !== 'success') throw new Error(`${dir}: the loop did not succeed`);
    return (u.user + u.system) / 1000;
  };
  once();
  once();
  return once;
}

const runs = await Promise.all(dirs.map(loader));
const samples: number[][] = dirs.map(() => []);
for (let r = 0; r < Number(values.rounds); r++)
  for (const [i, once] of runs.entries()) for (let k = 0; k < 5; k++) samples[i]!.push(once());
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
for (const [i, dir] of dirs.entries())
  console.log(
    `${path.relative(process.cwd(), dir) || '.'}  ${median(samples[i]!).toFixed(1)} ms per ${LOOPS.toLocaleString('en')}-iteration loop (median of ${samples[i]!.length}, CPU)`,
  );
