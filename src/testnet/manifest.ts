// DIR/testnet.json: what `kestreld testnet` laid out (nodes, ports, node ids, binaries), read back by the supervisor,
// `testnet stop` and the tests. Homes are stored relative to DIR so the directory can be moved as a whole.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { NodePorts } from './ports.ts';

/** Name of the manifest file inside a testnet directory. */
export const MANIFEST_FILE = 'testnet.json';

/** One validator of the manifest. */
export interface ManifestNode {
  /** node0, node1, … */
  name: string;
  /** CometBFT node id (hex of the node key's address), used in persistent_peers. */
  nodeId: string;
  ports: NodePorts;
  /** CometBFT home, relative to the testnet directory. */
  cometHome: string;
  /** Kestrel home, relative to the testnet directory. */
  appHome: string;
}

/** The whole manifest. */
export interface Manifest {
  format: 1;
  chainId: string;
  /** Voting power of every validator in the CometBFT genesis. */
  power: number;
  cometbftVersion: string;
  /** Absolute paths of the programs the supervisor runs. */
  programs: { node: string; kestreld: string; cometbft: string };
  nodes: ManifestNode[];
}

/** Files of one node inside the testnet directory (absolute). */
export interface NodeFiles {
  dir: string;
  cometHome: string;
  appHome: string;
  appLog: string;
  cometLog: string;
  appPid: string;
  cometPid: string;
}

/** Absolute paths of node `n`'s homes, logs and pid files. */
export function nodeFiles(dir: string, n: ManifestNode): NodeFiles {
  const nodeDir = resolve(dir, n.name);
  return {
    dir: nodeDir,
    cometHome: resolve(dir, n.cometHome),
    appHome: resolve(dir, n.appHome),
    appLog: join(nodeDir, 'app.log'),
    cometLog: join(nodeDir, 'cometbft.log'),
    appPid: join(nodeDir, 'app.pid'),
    cometPid: join(nodeDir, 'cometbft.pid'),
  };
}

/** Supervisor files of the testnet directory (absolute). */
export function supervisorFiles(dir: string): { pid: string; log: string } {
  return { pid: resolve(dir, 'supervisor.pid'), log: resolve(dir, 'supervisor.log') };
}

/** The program lines (argv) that run node `n`'s app and its CometBFT. */
export function nodeCommands(dir: string, m: Manifest, n: ManifestNode): { app: string[]; comet: string[] } {
  const f = nodeFiles(dir, n);
  return {
    app: [m.programs.node, m.programs.kestreld, 'start', '--home', f.appHome],
    comet: [m.programs.cometbft, 'start', '--home', f.cometHome],
  };
}

function fail(path: string, what: string): never {
  throw new Error(`${path}: not a Kestrel testnet manifest (${what})`);
}

function isPorts(v: unknown): v is NodePorts {
  if (!v || typeof v !== 'object') return false;
  const keys: Array<keyof NodePorts> = ['ethHttp', 'ethWs', 'grpc', 'appRpc', 'p2p', 'rpc', 'abci'];
  return keys.every((k) => Number.isSafeInteger((v as Record<string, unknown>)[k]));
}

/** Reads and checks DIR/testnet.json; the error says what is wrong (missing directory, wrong file). */
export function readManifest(dir: string): Manifest {
  const path = join(dir, MANIFEST_FILE);
  if (!existsSync(path))
    throw new Error(
      `${dir} is not a testnet directory: ${MANIFEST_FILE} is missing (create one with "kestreld testnet")`,
    );
  let m: Manifest;
  try {
    m = JSON.parse(readFileSync(path, 'utf8')) as Manifest;
  } catch (e) {
    fail(path, (e as Error).message);
  }
  if (m.format !== 1) fail(path, `format ${String(m.format)}`);
  if (typeof m.chainId !== 'string' || !Array.isArray(m.nodes) || m.nodes.length === 0)
    fail(path, 'no chainId or nodes');
  if (!m.programs || typeof m.programs.cometbft !== 'string' || typeof m.programs.kestreld !== 'string')
    fail(path, 'no programs');
  for (const n of m.nodes) {
    if (typeof n.name !== 'string' || !/^[a-z0-9-]+$/.test(n.name)) fail(path, 'bad node name');
    if (typeof n.nodeId !== 'string' || !/^[0-9a-f]{40}$/.test(n.nodeId)) fail(path, `bad node id of ${n.name}`);
    if (!isPorts(n.ports)) fail(path, `bad ports of ${n.name}`);
    if (typeof n.cometHome !== 'string' || typeof n.appHome !== 'string') fail(path, `bad homes of ${n.name}`);
  }
  return m;
}
