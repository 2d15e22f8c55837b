// Solo consensus: the embedded engine seals blocks (instantly or on a timer), the submit path waits for inclusion,
// and this node serves the CometBFT-style RPC itself.
import { readValidatorIdentity } from '../cometrpc/identity.ts';
import { startCometRpcServer } from '../cometrpc/server.ts';
import type { NodeConfig } from '../config/schema.ts';
import { DevToolkit } from '../consensus/solo/devToolkit.ts';
import { SoloEngine } from '../consensus/solo/engine.ts';
import type { ConsensusDeps, ConsensusMode, ConsensusServices, ModeListeners, ModeServer } from './mode.ts';

/** The embedded engine and its CometBFT-style RPC server. */
export class SoloMode implements ConsensusMode {
  private engine?: SoloEngine;
  private deps?: ConsensusDeps;

  constructor(private readonly config: NodeConfig) {}

  /** A pooled tx: in instant mode, seal soon. */
  onPending(): void {
    this.engine?.notify();
  }

  /** Builds the engine; the submit path waits for the block holding each tx (instant mode). */
  bind(deps: ConsensusDeps): ConsensusServices {
    const engine = new SoloEngine(deps.app, deps.pool, this.config.blockTimeMs);
    this.engine = engine;
    this.deps = deps;
    deps.txs.useSealing((hash) => engine.settled(hash));
    engine.useAdmissions(deps.txs);
    return { dev: this.config.devToolkit ? new DevToolkit(deps.app, engine, deps.pool, deps.txs) : undefined };
  }

  /** Seals block 1 on a fresh chain, then starts interval sealing. */
  async start(): Promise<void> {
    const { engine, deps } = this.bound();
    await engine.sealFirstBlock(deps.genesis.time);
    engine.start();
  }

  /** The CometBFT-style RPC (status, blocks, abci_query, broadcast_tx_*). */
  async listen(track: <T extends ModeServer>(server: T) => T): Promise<ModeListeners> {
    const { deps: d } = this.bound();
    const validator = readValidatorIdentity(d.validatorKeyPath);
    const server = track(
      await startCometRpcServer(this.config.rpcLaddr, {
        chainId: this.config.chainId,
        moniker: 'kestrel',
        version: d.version,
        rpcAddress: this.config.rpcLaddr,
        nodeId: validator.address,
        // A getter, not a copy: the public key is computed when a call first needs it (cometrpc/identity.ts).
        validator: {
          address: validator.address,
          get pubKey() {
            return validator.pubKey;
          },
          votingPower: 10n,
        },
        head: () => d.app.head,
        blockByNumber: (n) => d.chain.blockByNumber(n),
        appHash: (b) => d.bank.appHash(b),
        query: (path, data, height) => d.app.query(path, data, height),
        submitTx: async (raw) => void (await d.txs.submitRaw(raw)),
        txByCometHash: (sha) => {
          const hash = d.chainStore.txHashByCometHash(sha);
          const mined = hash && d.chain.minedTx(hash);
          return mined ? { block: mined.block, index: mined.index } : undefined;
        },
        receipts: (b) => d.chain.receipts(b),
        onBlock: (fn) => d.app.onCommit((c) => fn(c.block, c.receipts)),
      }),
    );
    return { cometPort: server.port };
  }

  /** Lets the block in progress finish. */
  async stop(): Promise<void> {
    await this.engine?.stop();
  }

  private bound(): { engine: SoloEngine; deps: ConsensusDeps } {
    if (!this.engine || !this.deps) throw new Error('solo consensus used before bind()');
    return { engine: this.engine, deps: this.deps };
  }
}
