// Prometheus metrics: off by default; with --metrics.address the page parses as the Prometheus text format and
// holds the chain, pool, JSON-RPC (per method and transport), WebSocket, commit, database and process series,
// whose values follow what the node did.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import WebSocket from 'ws';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { freePort, printLogsOnFailure, rpcResult, startNode, type KestrelNode } from '../helpers/node.ts';
import { sendTx, signTx } from '../helpers/tx.ts';

interface Family {
  name: string;
  help: string;
  type: string;
  metrics: Array<{
    value?: string;
    labels?: Record<string, string>;
    buckets?: Record<string, string>;
    count?: string;
    sum?: string;
  }>;
}

/** The page, parsed (the parser throws on any line that is not valid text format); `text` keeps the raw page. */
async function scrape(url: string): Promise<Map<string, Family> & { text: string }> {
  const res = await fetch(url);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const families = parsePrometheusTextFormat(text) as Family[];
  return Object.assign(new Map(families.map((f) => [f.name, f])), { text });
}

/** A sample of the raw page (the parser folds a labelled histogram's series into one, so those are read here). */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  assert.ok(line, `${series} missing`);
  return Number(line.slice(series.length + 1));
}

function value(f: Family | undefined, labels: Record<string, string> = {}): number {
  assert.ok(f, 'series missing');
  const m = f.metrics.find((x) => Object.entries(labels).every(([k, v]) => x.labels?.[k] === v));
  assert.ok(m, `${f.name}${JSON.stringify(labels)} missing`);
  return Number(m.value ?? m.count);
}

describe('Prometheus metrics', { timeout: 120_000 }, () => {
  let node: KestrelNode;
  let metricsUrl: string;
  before(async () => {
    const port = await freePort();
    node = await startNode({ args: ['--metrics.address', `127.0.0.1:${port}`] });
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
  });
  printLogsOnFailure(() => node);
  after(async () => node?.dispose());

  it('is off unless asked for', async () => {
    const plain = await startNode();
    try {
      assert.doesNotMatch(plain.logs(), /Prometheus metrics on/);
      await assert.rejects(
        fetch('http://127.0.0.1:6065/metrics', { signal: AbortSignal.timeout(2000) }).then((r) => {
          if (!r.ok) throw new Error(String(r.status));
          return r
            .text()
            .then((t) => (/kestrel_chain_head_height/.test(t) ? t : Promise.reject(new Error('another server'))));
        }),
      );
    } finally {
      await plain.dispose();
    }
  });

  it('serves every series family with conventional names, types and values that follow the node', async () => {
    const [a, b] = [DEV_ACCOUNTS[1]!, DEV_ACCOUNTS[2]!];
    const sent = await sendTx(node.http, a.privateKey, { to: b.address, value: 1n });
    assert.equal(sent.receipt.status, '0x1');
    const stale = await signTx(node.http, a.privateKey, { to: b.address, value: 1n, nonce: 0 });
    await assert.rejects(rpcResult(node.http, 'eth_sendRawTransaction', [stale.raw]), /nonce too low/);
    await assert.rejects(rpcResult(node.http, 'eth_sendRawTransaction', [stale.raw]), /nonce too low/);
    const gap = await signTx(node.http, a.privateKey, { to: b.address, value: 1n, nonce: 99 });
    await rpcResult(node.http, 'eth_sendRawTransaction', [gap.raw]); // queued behind a nonce gap
    for (let i = 0; i < 5; i++) await rpcResult(node.http, 'eth_blockNumber', []);
    await rpcResult(node.http, 'no_suchMethod', []).catch(() => undefined);
    const ws = new WebSocket(node.ws);
    await new Promise((r, j) => (ws.once('open', r), ws.once('error', j)));
    const wsCall = (method: string, params: unknown[]) =>
      new Promise<unknown>((r) => {
        ws.once('message', (d) => r(JSON.parse(String(d)).result));
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
      });
    await wsCall('eth_chainId', []);
    await wsCall('eth_subscribe', ['newHeads']);
    try {
      const m = await scrape(metricsUrl);
      const types: Record<string, string> = {
        kestrel_chain_head_height: 'gauge',
        kestrel_chain_block_interval_seconds: 'histogram',
        kestrel_chain_block_transactions: 'histogram',
        kestrel_chain_block_gas_used: 'histogram',
        kestrel_chain_transactions_total: 'counter',
        kestrel_chain_gas_used_total: 'counter',
        kestrel_chain_commit_duration_seconds: 'histogram',
        kestrel_txpool_pending: 'gauge',
        kestrel_txpool_queued: 'gauge',
        kestrel_txpool_rejected_total: 'counter',
        kestrel_rpc_requests_total: 'counter',
        kestrel_rpc_errors_total: 'counter',
        kestrel_rpc_request_duration_seconds: 'histogram',
        kestrel_rpc_ws_subscriptions: 'gauge',
        kestrel_abci_request_duration_seconds: 'histogram',
        kestrel_db_size_bytes: 'gauge',
        process_cpu_seconds_total: 'counter',
        process_resident_memory_bytes: 'gauge',
        nodejs_heap_size_used_bytes: 'gauge',
        nodejs_eventloop_lag_seconds: 'gauge',
      };
      for (const [name, type] of Object.entries(types)) assert.equal(m.get(name)?.type.toLowerCase(), type, name);
      const head = Number(await rpcResult(node.http, 'eth_blockNumber', []));
      assert.equal(value(m.get('kestrel_chain_head_height')), head);
      assert.ok(value(m.get('kestrel_chain_transactions_total')) >= 1);
      assert.ok(value(m.get('kestrel_chain_gas_used_total')) >= 21000);
      assert.equal(value(m.get('kestrel_txpool_queued')), 1);
      assert.equal(value(m.get('kestrel_txpool_rejected_total'), { reason: 'nonce_too_low' }), 2);
      assert.equal(
        value(m.get('kestrel_rpc_requests_total'), { method: 'eth_blockNumber', transport: 'http' }) >= 5,
        true,
      );
      assert.equal(value(m.get('kestrel_rpc_requests_total'), { method: 'eth_chainId', transport: 'ws' }), 1);
      assert.equal(value(m.get('kestrel_rpc_requests_total'), { method: 'other', transport: 'http' }), 1);
      assert.equal(
        value(m.get('kestrel_rpc_errors_total'), { method: 'eth_sendRawTransaction', transport: 'http' }),
        2,
      );
      const bn = 'method="eth_blockNumber",transport="http"';
      assert.ok(sample(m.text, `kestrel_rpc_request_duration_seconds_count{${bn}}`) >= 5);
      assert.ok(sample(m.text, `kestrel_rpc_request_duration_seconds_bucket{${bn},le="+Inf"}`) >= 5);
      assert.ok(sample(m.text, `kestrel_rpc_request_duration_seconds_sum{${bn}}`) > 0);
      assert.ok(sample(m.text, `kestrel_chain_commit_duration_seconds_count`) >= 1, 'commits observed');
      assert.equal(value(m.get('kestrel_rpc_ws_subscriptions')), 1);
      assert.ok(value(m.get('kestrel_db_size_bytes')) > 0);
      assert.ok(value(m.get('process_resident_memory_bytes')) > 10e6);
      // geth's and Ethermint's path serves the same page.
      assert.ok(
        (await scrape(metricsUrl.replace('/metrics', '/debug/metrics/prometheus'))).has('kestrel_chain_head_height'),
      );
      assert.equal((await fetch(metricsUrl.replace('/metrics', '/other'))).status, 404);
    } finally {
      ws.close();
    }
  });
});
