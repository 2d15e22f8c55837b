// Port plan of a loopback validator network: every node gets its own block of PORT_STRIDE ports from a base port.

/** The listen ports of one validator (the app and its CometBFT). */
export interface NodePorts {
  /** Kestrel JSON-RPC over HTTP (eth_). */
  ethHttp: number;
  /** Kestrel JSON-RPC over WebSocket. */
  ethWs: number;
  /** Kestrel gRPC. */
  grpc: number;
  /** Kestrel's own CometBFT-compatible RPC ([rpc] laddr): served by the solo engine only, reserved so a home switched to solo does not collide. */
  appRpc: number;
  /** Kestrel's Prometheus metrics (--metrics.address). */
  metrics: number;
  /** CometBFT peer-to-peer. */
  p2p: number;
  /** CometBFT RPC (status, validators, broadcast_tx_sync, …). */
  rpc: number;
  /** ABCI socket the app serves and CometBFT dials. */
  abci: number;
}

/** Ports reserved per node; node i uses base + i*PORT_STRIDE + offset. */
export const PORT_STRIDE = 10;

/** Offsets inside a node's block: node 0 of the default base gets CometBFT's usual 26656/26657/26658. */
export const PORT_OFFSETS: Readonly<NodePorts> = {
  ethHttp: 0,
  ethWs: 1,
  grpc: 2,
  appRpc: 3,
  metrics: 5,
  p2p: 6,
  rpc: 7,
  abci: 8,
};

/** Default base port: node0 p2p/rpc/abci = 26656/26657/26658, eth HTTP/WS = 26650/26651. */
export const DEFAULT_BASE_PORT = 26650;

/** Most validators a loopback testnet lays out (each one is two processes on this machine). */
export const MAX_VALIDATORS = 32;

/** The ports of `validators` nodes starting at `basePort`; throws when the block leaves 1024..65535. */
export function planPorts(basePort: number, validators: number): NodePorts[] {
  if (!Number.isSafeInteger(validators) || validators < 1 || validators > MAX_VALIDATORS) {
    throw new Error(`--validators must be an integer from 1 to ${MAX_VALIDATORS} (got ${validators})`);
  }
  const last = basePort + validators * PORT_STRIDE - 1;
  if (!Number.isSafeInteger(basePort) || basePort < 1024 || last > 65535) {
    throw new Error(
      `--base-port ${basePort} with ${validators} validators needs ports ${basePort}..${last}; they must lie within 1024..65535`,
    );
  }
  const plan: NodePorts[] = [];
  for (let i = 0; i < validators; i++) {
    const at = basePort + i * PORT_STRIDE;
    plan.push({
      ethHttp: at + PORT_OFFSETS.ethHttp,
      ethWs: at + PORT_OFFSETS.ethWs,
      grpc: at + PORT_OFFSETS.grpc,
      appRpc: at + PORT_OFFSETS.appRpc,
      metrics: at + PORT_OFFSETS.metrics,
      p2p: at + PORT_OFFSETS.p2p,
      rpc: at + PORT_OFFSETS.rpc,
      abci: at + PORT_OFFSETS.abci,
    });
  }
  return plan;
}

/** Parses a decimal integer flag value, with the flag's name in the error. */
export function parseIntFlag(text: string, flag: string): number {
  if (!/^\d+$/.test(text.trim())) throw new Error(`${flag} must be a non-negative integer (got "${text}")`);
  return Number(text.trim());
}
