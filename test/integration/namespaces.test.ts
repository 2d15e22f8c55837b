// `--json-rpc.api` selects the namespaces served; a namespace that is not enabled answers -32601 like an
// unknown method, over HTTP and WS alike.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { type KestrelNode, printLogsOnFailure, rpc, startNode } from '../helpers/node.ts';
import { WsRpc } from '../helpers/ws.ts';

describe('--json-rpc.api eth,web3', { timeout: 60_000 }, () => {
  let node: KestrelNode;
  let ws: WsRpc;
  before(async () => {
    node = await startNode({ args: ['--json-rpc.api', 'eth,web3'] });
    ws = await WsRpc.connect(node.ws);
  });
  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    await ws?.close();
    await node?.dispose();
  });

  for (const transport of ['http', 'ws'] as const) {
    it(`enabled namespaces answer, disabled ones are -32601 (${transport})`, async () => {
      const call = (m: string, p: unknown[] = []) => (transport === 'http' ? rpc(node.http, m, p) : ws.request(m, p));
      assert.equal((await call('eth_chainId')).result, '0x2328');
      assert.equal(typeof (await call('web3_clientVersion')).result, 'string');
      for (const m of ['net_version', 'net_listening', 'net_peerCount']) {
        const r = await call(m);
        assert.equal(r.result, undefined, `${m} must not be served: ${JSON.stringify(r)}`);
        assert.equal(r.error?.code, -32601);
        assert.equal(r.error?.message, `the method ${m} does not exist/is not available`);
      }
    });
  }
});
