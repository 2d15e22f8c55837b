// An in-process node: a fresh --dev home in the temp dir, every listener on an ephemeral port, startNode called in
// this process (no child process). Several can run side by side; each owns its home and closes cleanly.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CHAIN_ID } from '../../src/config/defaults.ts';
import { loadConfig, type FlagOverrides } from '../../src/config/load.ts';
import { LogSink } from '../../src/log/logger.ts';
import { startNode, type RunningNode } from '../../src/main.ts';
import { initHome } from '../../src/node/home.ts';

/** A node running inside the test process. */
export interface TestNode {
  home: string;
  node: RunningNode;
  /** JSON-RPC over HTTP. */
  url: string;
  /** Stops the node and removes its home. */
  close(): Promise<void>;
}

/** Starts a node in this process on a new --dev home; `flags` are `kestreld start` flags (e.g. 'block-time'). */
export async function createTestNode(flags: FlagOverrides = {}): Promise<TestNode> {
  const home = mkdtempSync(join(tmpdir(), 'kestrel-inproc-'));
  try {
    initHome(home, { chainId: DEFAULT_CHAIN_ID, dev: true });
    const config = loadConfig(
      home,
      {
        dev: true,
        'json-rpc.address': '127.0.0.1:0',
        'json-rpc.ws-address': '127.0.0.1:0',
        'grpc.address': '127.0.0.1:0',
        'rpc.laddr': 'tcp://127.0.0.1:0',
        ...flags,
      },
      DEFAULT_CHAIN_ID,
    );
    const node = await startNode(config, { log: new LogSink('warn', 'text') });
    let closed = false;
    return {
      home,
      node,
      url: `http://127.0.0.1:${node.httpPort}`,
      async close() {
        if (closed) return;
        closed = true;
        await node.close();
        rmSync(home, { recursive: true, force: true });
      },
    };
  } catch (e) {
    rmSync(home, { recursive: true, force: true });
    throw e;
  }
}
