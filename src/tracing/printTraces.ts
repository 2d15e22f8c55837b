// --print-traces: after each committed block, every transaction's call tree (callTracer, replayed) and the output
// of its Solidity console.log calls (Hardhat's console.sol: calls to the console address, decoded by selector) go
// to the node's log, as Hardhat and Anvil print them. Printing runs after the commit, in block order, and never
// holds up block production; a trace that fails is logged as such.
import type { CommittedBlock } from '../app/app.ts';
import { type AbiType, abiDecode, parseType } from '../primitives/abi.ts';
import { keccak256 } from '../primitives/keccak.ts';
import { bytesToHex } from '../primitives/hex.ts';
import { format } from 'node:util';
import type { TraceService } from './service.ts';
import type { CallFrame, TraceConfig } from './types.ts';
import { errorMessage } from '../errors/index.ts';

/** console.sol's address: "console.log" in ASCII, left-padded. */
export const CONSOLE_ADDRESS = '0x000000000000000000636f6e736f6c652e6c6f67';

/** Selector (hex, no 0x) → the parameter types of a console.sol function. */
function consoleSignatures(): Map<string, AbiType[]> {
  const table = new Map<string, AbiType[]>();
  const add = (name: string, types: string[], alias = types): void => {
    const signature = new TextEncoder().encode(`${name}(${alias.join(',')})`);
    table.set(bytesToHex(keccak256(signature).subarray(0, 4)).slice(2), types.map(parseType));
  };
  add('log', []);
  const kinds = ['uint256', 'string', 'bool', 'address'];
  let combos: string[][] = [[]];
  for (let n = 1; n <= 4; n++) {
    combos = combos.flatMap((c) => kinds.map((k) => [...c, k]));
    for (const c of combos) {
      add('log', c);
      // console.sol before Hardhat 2.12 hashed `uint` rather than `uint256`.
      if (c.includes('uint256'))
        add(
          'log',
          c,
          c.map((t) => (t === 'uint256' ? 'uint' : t)),
        );
    }
  }
  add('log', ['int256']);
  add('log', ['bytes']);
  for (const [name, t] of [
    ['logInt', 'int256'],
    ['logUint', 'uint256'],
    ['logString', 'string'],
    ['logBool', 'bool'],
    ['logAddress', 'address'],
    ['logBytes', 'bytes'],
  ] as const) {
    add(name, [t]);
  }
  for (let i = 1; i <= 32; i++) add(`logBytes${i}`, [`bytes${i}`]);
  return table;
}

let signatures: Map<string, AbiType[]> | undefined;

/** The text a console.log call prints (util.format over its decoded arguments), or undefined if not console.sol's. */
export function consoleLine(input: Uint8Array): string | undefined {
  signatures ??= consoleSignatures();
  const types = signatures.get(bytesToHex(input.subarray(0, 4)).slice(2));
  if (types === undefined) return undefined;
  try {
    const values = abiDecode(types, input.subarray(4)).map((v) =>
      v instanceof Uint8Array ? bytesToHex(v) : typeof v === 'bigint' ? v.toString() : v,
    );
    return values.length === 0 ? '' : format(...(values as [unknown, ...unknown[]]));
  } catch {
    return undefined;
  }
}

/** Every console.log line of a call tree, in execution order. */
export function consoleLines(frame: CallFrame): string[] {
  const out: string[] = [];
  const walk = (f: CallFrame): void => {
    if (f.to !== undefined && bytesToHex(f.to) === CONSOLE_ADDRESS) {
      const line = consoleLine(f.input);
      if (line !== undefined) out.push(line);
    }
    for (const c of f.calls) walk(c);
  };
  walk(frame);
  return out;
}

/** The call tree as lines indented by depth: `[gasUsed] TYPE to::selector`, its calls, then `└─ ← outcome`. */
export function traceLines(frame: CallFrame, depth = 0): string[] {
  const pad = '  '.repeat(depth + 1);
  const to = frame.to === undefined ? '<create>' : bytesToHex(frame.to);
  const creates = frame.type === 'CREATE' || frame.type === 'CREATE2';
  const selector = creates ? '' : '::' + bytesToHex(frame.input.subarray(0, 4));
  const value = frame.value !== undefined && frame.value > 0n ? ` value ${frame.value}` : '';
  const lines = [`${pad}[${frame.gasUsed}] ${frame.type} ${to}${selector}${value}`];
  for (const c of frame.calls) lines.push(...traceLines(c, depth + 1));
  const out = frame.output ?? new Uint8Array(0);
  // Deployed code and long return data would drown the tree: their size stands for them.
  const shown = creates || out.length > 64 ? `${out.length} bytes` : bytesToHex(out);
  const outcome = frame.error ? `← [Revert] ${frame.revertReason ?? frame.error}` : `← [Return] ${shown}`;
  lines.push(`${pad}└─ ${outcome}`);
  return lines;
}

const CALL_TRACER: TraceConfig = {
  tracer: 'callTracer',
  tracerConfig: {},
  timeoutMs: 10_000,
  disableStack: true,
  disableStorage: true,
  enableMemory: false,
  enableReturnData: false,
  limit: 0,
};

/** Prints each committed block's transactions' traces and console.log output through `write`. */
export class TracePrinter {
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly tracing: Pick<TraceService, 'traceTransaction'>,
    private readonly write: (line: string) => void,
  ) {}

  /** Queues the block's printing (commit listeners are synchronous; printing keeps block order). */
  onCommit(c: CommittedBlock): void {
    if (c.block.txHashes.length === 0) return;
    this.queue = this.queue.then(() => this.print(c));
  }

  /** Resolves once everything queued so far is printed. */
  idle(): Promise<void> {
    return this.queue;
  }

  private async print(c: CommittedBlock): Promise<void> {
    for (const hash of c.block.txHashes) {
      const lines = [`Transaction: ${bytesToHex(hash)} (block ${c.block.number})`];
      try {
        const r = await this.tracing.traceTransaction(hash, CALL_TRACER);
        if (r.kind !== 'call') continue;
        const logs = consoleLines(r.value);
        if (logs.length > 0) lines.push('console.log:', ...logs.map((l) => '  ' + l));
        lines.push('Traces:', ...traceLines(r.value));
      } catch (e) {
        lines.push(`  trace failed: ${errorMessage(e)}`);
      }
      this.write(lines.join('\n'));
    }
  }
}
