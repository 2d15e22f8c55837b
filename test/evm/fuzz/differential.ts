// Runs one generated case on Kestrel's engine and on @ethereumjs/vm and lists where they differ: validity,
// status (success / revert / exceptional halt), gas used, refund, output, logs and the post-state root.
import type { StateTestEngine } from '../../../src/evm/statetest/engine.ts';
import { applyDiff, logsHash, PreStateReader, RootCache } from '../../../src/evm/statetest/poststate.ts';
import { blockEnvOf } from '../../../src/evm/statetest/runner.ts';
import type { ExecStatus, Fork } from '../../../src/evm/types.ts';
import type { FuzzCase } from './generate.ts';

/** One field on which the engines disagree. */
export interface Divergence {
  seed: number;
  field: string;
  kestrel: string;
  ethereumjs: string;
}

const hex = (b: Uint8Array) => '0x' + Buffer.from(b).toString('hex');
const statusClass = (s: ExecStatus) => (s === 'success' ? 'success' : s === 'revert' ? 'revert' : 'halt');

// EIP-7623's floor: 21000 + 10 per token, a zero byte one token and any other byte four.
function floorGas(data: Uint8Array): bigint {
  let tokens = 0n;
  for (const b of data) tokens += b === 0 ? 1n : 4n;
  return 21000n + 10n * tokens;
}

/**
 * The refund Kestrel should report given ethereumjs's refund counter (ethereumjs reports the counter, not the refund
 * applied): min(counter, (gasUsed + refund) / 5) per EIP-3529. When the EIP-7623 floor set the gas used,
 * ethereumjs zeroes its counter, so Kestrel's figure (the capped refund the floor superseded) is taken as is.
 */
function expectedRefund(c: FuzzCase, gasUsed: bigint, refund: bigint, counter: bigint): bigint {
  if (counter === 0n && gasUsed === floorGas(c.tx.data)) return refund;
  const cap = (gasUsed + refund) / 5n;
  return counter < cap ? counter : cap;
}

/** Compares the engines on one case (both initialised). */
export async function compareCase(
  c: FuzzCase,
  kestrel: StateTestEngine,
  oracle: StateTestEngine,
  fork: Fork = 'Prague',
): Promise<Divergence[]> {
  const reader = new PreStateReader(c.pre);
  const extras = { excessBlobGas: c.env.excessBlobGas };
  const out: Divergence[] = [];
  const differ = (field: string, k: string, e: string) => {
    if (k !== e) out.push({ seed: c.seed, field, kestrel: k, ethereumjs: e });
  };
  let ours;
  try {
    ours = await kestrel.execute(reader, blockEnvOf(c.env, fork, kestrel), c.tx, fork, extras);
  } catch (e) {
    return [{ seed: c.seed, field: 'crash', kestrel: String((e as Error).stack ?? e).slice(0, 400), ethereumjs: '' }];
  }
  const theirs = await oracle.execute(reader, blockEnvOf(c.env, fork, oracle), c.tx, fork, extras);
  if (!ours.outcome.ok || !theirs.outcome.ok) {
    const describe = (o: typeof ours.outcome) => (o.ok ? 'valid' : `invalid (${o.reason}: ${o.message.slice(0, 120)})`);
    // Both invalid agrees whatever the reasons (ethereumjs's are only mapped from its messages).
    if (ours.outcome.ok !== theirs.outcome.ok) differ('validity', describe(ours.outcome), describe(theirs.outcome));
    return out;
  }
  const a = ours.outcome.result;
  const b = theirs.outcome.result;
  differ('status', statusClass(a.status), statusClass(b.status));
  differ('gasUsed', String(a.gasUsed), String(b.gasUsed));
  differ('gasRefund', String(a.gasRefund), String(expectedRefund(c, a.gasUsed, a.gasRefund, b.gasRefund)));
  differ('output', hex(a.output), hex(b.output));
  differ('logs', hex(logsHash(a.logs)), hex(logsHash(b.logs)));
  const roots = new RootCache();
  const ourRoot = hex(roots.stateRoot(applyDiff(c.pre, ours.diff)));
  differ('stateRoot', ourRoot, hex(theirs.root!));
  // The oracle's diff must give its own root, or the comparison above proves nothing about the diff path.
  const oracleDiffRoot = hex(roots.stateRoot(applyDiff(c.pre, theirs.diff)));
  if (oracleDiffRoot !== hex(theirs.root!))
    out.push({
      seed: c.seed,
      field: 'oracle-diff',
      kestrel: '',
      ethereumjs: `${oracleDiffRoot} vs ${hex(theirs.root!)}`,
    });
  return out;
}
