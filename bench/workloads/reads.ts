// Read workloads: wrk POSTs one fixed JSON-RPC body over keep-alive connections for a fixed time.
import { balanceOfData, recipientAddress } from '../lib/contracts.ts';
import { runWrk } from '../lib/wrk.ts';
import type { Account } from '../lib/tx.ts';
import type { RowSpec, Sample } from '../report.ts';
import type { Chain } from './chain.ts';

/** Connection counts of the read workloads. */
export const READ_CONNECTIONS = [2, 32] as const;

interface ReadKind {
  key: string;
  label: string;
  unit: string;
  body: (token: string, accounts: Account[]) => string;
  /** Items the answer must hold (1 for a single call, 100 for the batch). */
  items: number;
}

const BATCH = 100;

const KINDS: ReadKind[] = [
  { key: 'blockNumber', label: 'eth_blockNumber', unit: 'req/s', items: 1, body: () => call(1, 'eth_blockNumber', []) },
  { key: 'chainId', label: 'eth_chainId', unit: 'req/s', items: 1, body: () => call(1, 'eth_chainId', []) },
  {
    key: 'getBalance',
    label: 'eth_getBalance(latest)',
    unit: 'req/s',
    items: 1,
    body: (_t, a) => call(1, 'eth_getBalance', [a[0]!.address, 'latest']),
  },
  {
    key: 'callBalanceOf',
    label: 'eth_call ERC20 balanceOf',
    unit: 'req/s',
    items: 1,
    body: (t, a) => call(1, 'eth_call', [{ to: t, data: balanceOfData(a[0]!.address) }, 'latest']),
  },
  {
    key: 'batch100',
    label: `batch of ${BATCH} eth_getBalance`,
    unit: 'batch/s',
    items: BATCH,
    body: (_t, a) =>
      `[${Array.from({ length: BATCH }, (_, i) => call(i + 1, 'eth_getBalance', [i % 2 === 0 ? a[i % a.length]!.address : recipientAddress(i), 'latest'])).join(',')}]`,
  },
];

function call(id: number, method: string, params: unknown[]): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

/** The body each read workload POSTs, and how many answers it expects (for in-process runs of the same bodies). */
export function readBodies(token: string, accounts: Account[]): Array<{ key: string; body: string; items: number }> {
  return KINDS.map((k) => ({ key: k.key, body: k.body(token, accounts), items: k.items }));
}

/** The rows of the read workloads (target: ≥ 1.2× the best peer). */
export function readSpecs(): RowSpec[] {
  return READ_CONNECTIONS.flatMap((c) =>
    KINDS.map((k) => ({
      id: `read.${k.key}.c${c}`,
      label: `${k.label}, ${c} conn`,
      unit: k.unit,
      better: 'higher' as const,
      target: { kind: 'vsBest' as const, factor: 1.2 },
    })),
  );
}

/** Checks one answer the way wrk cannot: a JSON-RPC error or a short batch makes the figure an error. */
function checkAnswer(answer: unknown, items: number): string | null {
  const list = Array.isArray(answer) ? answer : [answer];
  if (list.length !== items) return `expected ${items} answers, got ${list.length}`;
  for (const a of list as Array<{ error?: { message: string }; result?: unknown }>) {
    if (a.error) return a.error.message;
    if (a.result === undefined) return 'answer without result';
  }
  return null;
}

/** Runs every read workload once against the chain; `token` is a deployed BenchToken. */
export async function runReads(
  chain: Chain,
  token: string,
  accounts: Account[],
  seconds: number,
  log: (s: string) => void,
): Promise<Map<string, Sample>> {
  const out = new Map<string, Sample>();
  for (const c of READ_CONNECTIONS) {
    for (const k of KINDS) {
      const id = `read.${k.key}.c${c}`;
      const body = k.body(token, accounts);
      const problem = checkAnswer(await chain.client.post(body), k.items);
      if (problem !== null) {
        out.set(id, { value: null, status: 'error', note: problem });
        continue;
      }
      try {
        const r = await runWrk(chain.node.url, body, c, seconds);
        const failed = r.non2xx + r.socketErrors;
        const sample: Sample = { value: r.requestsPerSec, status: 'ok' };
        if (r.requests === 0) {
          sample.status = 'error';
          sample.note = `no request completed within ${seconds} s (socket errors ${r.socketErrors})`;
        } else if (failed > 0) {
          sample.note = `${failed} of ${r.requests} requests failed (non-2xx ${r.non2xx}, socket errors ${r.socketErrors})`;
          if (failed > r.requests / 100) sample.status = 'error';
        }
        out.set(id, sample);
        log(`  ${id}: ${Math.round(r.requestsPerSec)} ${k.unit}${sample.note ? ` (${sample.note})` : ''}`);
      } catch (e) {
        out.set(id, { value: null, status: 'error', note: (e as Error).message.slice(0, 200) });
      }
    }
  }
  return out;
}
