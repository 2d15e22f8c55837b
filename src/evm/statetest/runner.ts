// Runs state-test cases on an engine and reports each in geth's `evm statetest` shape. Follows geth's runner
// (tests/state_test_util.go): the tx is built from the JSON fields, `txbytes` must decode and yield a sender, a
// block's blob limit is checked, the coinbase is touched after the tx, and a rejected tx passes exactly when the
// case expects an exception (the reasons are compared loosely, but both are reported).
import { bytesToHex } from '../../primitives/hex.ts';
import { FORKS, forkRules } from '../forks.ts';
import { initKeccak } from '../../primitives/keccak.ts';
import type { BlockEnv, Fork, Tx } from '../types.ts';
import type { ExecutedTx, StateTestEngine } from './engine.ts';
import { FixtureError, parseStateTestFile, type StateTest, type StateTestCase, type TestEnv } from './fixture.ts';
import { fixturePaths, readFixtureFiles } from './load.ts';
import { applyDiff, describeStateDifference, logsHash, PreStateReader, RootCache, touchCoinbase } from './poststate.ts';
import { txBytesError } from './txbytes.ts';

/** One case's result, as geth's `evm statetest` prints it. */
export interface StateTestResult {
  name: string;
  pass: boolean;
  stateRoot: string;
  fork: string;
  error?: string;
}

/** What to run and on what. */
export interface RunOptions {
  engine: StateTestEngine;
  /** Only cases of this fork. */
  fork?: string;
  /** Only cases whose name (or test name) matches. */
  run?: RegExp;
  /** Only fixture files whose running index ≡ `index` (mod `count`): a fixed split of the work. */
  shard?: { index: number; count: number };
  /**
   * Only fixture files this claims, asked once per file in order of its running index: how a worker pool splits
   * the work dynamically (each worker claims the next unclaimed index from a shared counter), so no worker idles
   * while another still holds a long tail of big files.
   */
  claim?: (fileIndex: number) => boolean;
  /** Only fixture files (named `path` or `bundle/inner-path`) this accepts. */
  include?: (file: string) => boolean;
  /** Told of each case left out because the engine does not run its fork. */
  onSkip?: (name: string, fork: string) => void;
}

/** The forks whose cases the runner runs: every fork the engine runs (a case of another fork is skipped). */
export const RUNNABLE_FORKS: readonly Fork[] = FORKS;

/** The engine's block context for a test's (or a fuzz case's) `env` under `fork`. */
export function blockEnvOf(e: TestEnv, fork: Fork, engine: StateTestEngine): BlockEnv {
  return {
    number: e.number,
    timestamp: e.timestamp,
    coinbase: e.coinbase,
    gasLimit: e.gasLimit,
    baseFee: e.baseFee,
    prevRandao: e.prevRandao,
    blobBaseFee: engine.blobBaseFee(e.excessBlobGas, fork),
    chainId: e.chainId,
  };
}

/** Per-test memo: the reader over `pre` and the storage roots of accounts a case left unchanged. */
interface TestContext {
  reader: PreStateReader;
  roots: RootCache;
}

// Why the runner itself refuses the case's tx before the engine sees it (geth's runner does the same).
function runnerRejection(c: StateTestCase, tx: Tx, fork: Fork): string | undefined {
  if (c.txBytes.length > 0) {
    const err = txBytesError(c.txBytes, c.test.env.chainId, forkRules(fork).setCode);
    if (err !== undefined) return err;
  }
  // Blobs per block (EIP-4844, EIP-7691): geth's runner refuses a tx beyond the block's limit.
  if (tx.blobVersionedHashes.length > forkRules(fork).blobs.max) return 'blob gas exceeds maximum';
  return undefined;
}

function preStateRoot(c: StateTestCase, ctx: TestContext): string {
  const state = applyDiff(c.test.pre, []);
  touchCoinbase(state, c.test.env.coinbase);
  return bytesToHex(ctx.roots.stateRoot(state));
}

function rejected(c: StateTestCase, ctx: TestContext, actual: string): StateTestResult {
  const stateRoot = preStateRoot(c, ctx);
  if (c.expectException !== undefined) {
    return { name: c.name, pass: true, stateRoot, fork: c.fork, error: `expected ${c.expectException}, got ${actual}` };
  }
  return { name: c.name, pass: false, stateRoot, fork: c.fork, error: `unexpected error: ${actual}` };
}

function judge(c: StateTestCase, ctx: TestContext, executed: ExecutedTx): StateTestResult {
  const { outcome } = executed;
  if (!outcome.ok) return rejected(c, ctx, `${outcome.reason}: ${outcome.message}`);
  const post = applyDiff(c.test.pre, executed.diff);
  touchCoinbase(post, c.test.env.coinbase);
  const root = ctx.roots.stateRoot(post);
  const stateRoot = bytesToHex(root);
  if (c.expectException !== undefined) {
    return {
      name: c.name,
      pass: false,
      stateRoot,
      fork: c.fork,
      error: `expected error ${c.expectException}, got no error (status ${outcome.result.status})`,
    };
  }
  if (executed.root !== undefined && bytesToHex(executed.root) !== stateRoot) {
    return {
      name: c.name,
      pass: false,
      stateRoot,
      fork: c.fork,
      error: `the engine's own root ${bytesToHex(executed.root)} differs from the root of its diff`,
    };
  }
  if (stateRoot !== bytesToHex(c.expectedRoot)) {
    const detail = describeStateDifference(post, c.expectedState);
    const status = `status ${outcome.result.status}, gasUsed ${outcome.result.gasUsed}`;
    const error = `post state root mismatch: got ${stateRoot}, want ${bytesToHex(c.expectedRoot)} (${status})${detail.length ? '; ' + detail.join('; ') : ''}`;
    return { name: c.name, pass: false, stateRoot, fork: c.fork, error };
  }
  const logs = bytesToHex(logsHash(outcome.result.logs));
  if (logs !== bytesToHex(c.expectedLogsHash)) {
    const error = `post state logs hash mismatch: got ${logs}, want ${bytesToHex(c.expectedLogsHash)} (${outcome.result.logs.length} logs)`;
    return { name: c.name, pass: false, stateRoot, fork: c.fork, error };
  }
  return { name: c.name, pass: true, stateRoot, fork: c.fork };
}

function crashed(c: StateTestCase, e: unknown): StateTestResult {
  const err = e as Error;
  const where = err.stack?.split('\n')[1]?.trim() ?? '';
  return {
    name: c.name,
    pass: false,
    stateRoot: '0x',
    fork: c.fork,
    error: `engine threw: ${err.message} ${where}`.trim(),
  };
}

/** Runs one case (the engine must have been initialised). */
export async function runCase(c: StateTestCase, engine: StateTestEngine, ctx: TestContext): Promise<StateTestResult> {
  const fork = c.fork as Fork;
  if (!c.tx.ok) return rejected(c, ctx, c.tx.error);
  const refusal = runnerRejection(c, c.tx.value, fork);
  if (refusal !== undefined) return rejected(c, ctx, refusal);
  try {
    const pending = engine.execute(ctx.reader, blockEnvOf(c.test.env, fork, engine), c.tx.value, fork, {
      excessBlobGas: c.test.env.excessBlobGas,
    });
    return judge(c, ctx, pending instanceof Promise ? await pending : pending);
  } catch (e) {
    return crashed(c, e);
  }
}

/** The per-test context for {@link runCase}. */
export function testContext(test: StateTest): TestContext {
  return { reader: new PreStateReader(test.pre), roots: new RootCache() };
}

/** Runs every selected case under `paths` (files, directories, bundles), yielding one result per case. */
export async function* runStateTests(paths: readonly string[], opts: RunOptions): AsyncGenerator<StateTestResult> {
  for await (const { result } of runStateTestCases(paths, opts)) yield result;
}

/** A result with the fixture file it came from (the file of a fixture that could not be read or parsed). */
export interface LocatedResult {
  result: StateTestResult;
  file: string;
}

/** As {@link runStateTests}, with each result's fixture file. */
export async function* runStateTestCases(paths: readonly string[], opts: RunOptions): AsyncGenerator<LocatedResult> {
  await initKeccak();
  await opts.engine.init();
  let fileIndex = 0;
  for (const p of paths) {
    for (const onDisk of fixturePaths(p)) {
      let files;
      try {
        files = readFixtureFiles(onDisk);
      } catch (e) {
        const error = `cannot read fixture: ${(e as Error).message}`;
        yield { file: onDisk, result: { name: onDisk, pass: false, stateRoot: '0x', fork: '', error } };
        continue;
      }
      for (const f of files) {
        if (opts.include !== undefined && !opts.include(f.file)) continue;
        const mine =
          (opts.shard === undefined || fileIndex % opts.shard.count === opts.shard.index) &&
          (opts.claim === undefined || opts.claim(fileIndex));
        fileIndex++;
        if (!mine) continue;
        let tests: StateTest[];
        try {
          tests = parseStateTestFile(f.json, f.file);
        } catch (e) {
          if (!(e instanceof FixtureError)) throw e;
          yield { file: f.file, result: { name: f.file, pass: false, stateRoot: '0x', fork: '', error: e.message } };
          continue;
        }
        for (const test of tests) {
          let ctx: TestContext | undefined;
          for (const c of test.cases) {
            if (opts.fork !== undefined && c.fork !== opts.fork) continue;
            if (opts.run !== undefined && !opts.run.test(c.name) && !opts.run.test(test.name)) continue;
            if (!RUNNABLE_FORKS.includes(c.fork as Fork)) {
              opts.onSkip?.(c.name, c.fork);
              continue;
            }
            ctx ??= testContext(test);
            yield { file: f.file, result: await runCase(c, opts.engine, ctx) };
          }
        }
      }
    }
  }
}
