// config.toml of a node that joins a running testnet by CometBFT state sync. Each value is chosen for what a join
// spends its time on (measured in bench/stateSync.ts): CometBFT sleeps for discovery_time before it looks at the
// snapshots its peers offered, then verifies the app hash of the chosen snapshot with its light client, fetches
// and applies the chunks, and block-syncs from the snapshot height to the head.
import type { TomlScalar } from '../config/appToml.ts';

/** Where the light client starts: a header the operator trusts, and the RPC servers it asks. */
export interface StateSyncTrust {
  /** CometBFT RPC addresses (tcp://host:port) of at least two nodes: a primary and a witness. */
  rpcServers: string[];
  /** Height of a trusted header; at or below the snapshot the node will restore (see stateSyncValues). */
  height: number;
  /** Hash of that header (CometBFT's block_id.hash, hex). */
  hash: string;
}

/** CometBFT's floor for discovery_time (statesync/syncer.go minimumDiscoveryTime; config.toml rejects less but 0). */
export const MIN_DISCOVERY = '5s';
/** CometBFT's floor for chunk_request_timeout (config.toml's ValidateBasic). */
export const MIN_CHUNK_REQUEST_TIMEOUT = '5s';

/** The [statesync] settings of a joining node, each at the value that makes a loopback join quickest. */
export function stateSyncValues(t: StateSyncTrust): Array<[string, string, TomlScalar]> {
  if (t.rpcServers.length < 2) throw new Error('state sync needs two RPC servers (a primary and a witness)');
  if (!Number.isSafeInteger(t.height) || t.height < 1) throw new Error(`trust height must be ≥ 1 (got ${t.height})`);
  if (!/^[0-9A-Fa-f]{64}$/.test(t.hash)) throw new Error(`trust hash must be 32 bytes of hex (got "${t.hash}")`);
  return [
    ['statesync', 'enable', true],
    ['statesync', 'rpc_servers', t.rpcServers.join(',')],
    // A trusted header at or below the snapshot height lets the light client verify forward to the snapshot's
    // H+1 and H+2 in one skipping step each; a header above it makes the light client walk back one header (one
    // RPC round trip) per block down to H+1, and once more for the state at H.
    ['statesync', 'trust_height', t.height],
    ['statesync', 'trust_hash', t.hash.toUpperCase()],
    // The minimum CometBFT allows. 0 would skip the wait, but the peers are dialled at the same moment and have not
    // answered yet: CometBFT then ends state sync for good ("no suitable snapshots found").
    ['statesync', 'discovery_time', MIN_DISCOVERY],
    // Peers on loopback answer a chunk request in milliseconds: a request lost to a busy peer is asked of another
    // after the minimum instead of the default 10 s.
    ['statesync', 'chunk_request_timeout', MIN_CHUNK_REQUEST_TIMEOUT],
  ];
}
