// What the bench needs from a node under test, whichever implementation it is.

/**
 * The nodes the bench knows, Kestrel first. anvil-prune is Anvil started with --prune-history (no old states kept),
 * measured beside Anvil's defaults in the write group only: issue 27's target 1 is against the faster of the two.
 */
export const NODE_NAMES = ['kestrel', 'anvil', 'anvil-prune', 'hardhat', 'ganache'] as const;
/** One of NODE_NAMES. */
export type NodeName = (typeof NODE_NAMES)[number];

/** A node process the bench started and owns. */
export interface RunningNode {
  readonly name: NodeName;
  /** http://127.0.0.1:<port> of its JSON-RPC server. */
  readonly url: string;
  /** PID of the process that serves JSON-RPC now (its RSS is what the bench reports). */
  readonly pid: number;
  /**
   * Milliseconds from spawn to the first answered eth_blockNumber. For a node with a home (Kestrel) this is a start
   * on an existing home, the usual case; a peer has one kind of start (a fresh in-memory chain).
   */
  readonly startupMs: number;
  /** The same for the first start on a fresh home (which creates it); undefined for a node without a home. */
  readonly freshStartupMs?: number;
  /**
   * Adds `n` empty blocks by the node's own means (anvil_mine, hardhat_mine, evm_mine; Kestrel restarts its home
   * with interval sealing); undefined when the node has none.
   */
  readonly mineEmpty?: (n: number) => Promise<void>;
  /** Why mineEmpty is undefined (shown in the report). */
  readonly mineUnsupportedReason?: string;
  /** The last lines the process printed (for error reports). */
  logTail(): string;
  /** Stops the process (SIGTERM, then SIGKILL) and removes whatever temporary files the bench created for it. */
  stop(): Promise<void>;
}

/** Starts one node of a kind on free loopback ports with the dev mnemonic and instant mining. */
export type NodeStarter = () => Promise<RunningNode>;
