import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MessageChannel, Worker } from 'node:worker_threads';
import { ReadBridge } from './readBridge.ts';

// The node's side, in a thread of its own: before each answer it wakes the waiting reader with a notify that
// belongs to no answer (as a previous read's late notify does), then answers 20 ms later.
const NODE_SIDE = `
const { workerData } = require('node:worker_threads');
const { port, signal } = workerData;
const flag = new Int32Array(signal);
port.on('message', (req) => {
  Atomics.notify(flag, 0);
  setTimeout(() => {
    port.postMessage({ value: Uint8Array.from(req.key).reverse() });
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  }, 20);
});
`;

test('a read waits for its answer, not for the first wake-up (a stray notify is not an answer)', async () => {
  const { port1, port2 } = new MessageChannel();
  const signal = new SharedArrayBuffer(4);
  const node = new Worker(NODE_SIDE, { eval: true, workerData: { port: port1, signal }, transferList: [port1] });
  try {
    await new Promise((resolve) => node.once('online', resolve));
    const bridge = new ReadBridge(port2, signal);
    for (let i = 0; i < 3; i++) assert.deepEqual(bridge.node(Uint8Array.of(i, 1, 2)), Uint8Array.of(2, 1, i));
  } finally {
    port2.close();
    await node.terminate();
  }
});
