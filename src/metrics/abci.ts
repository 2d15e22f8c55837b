// ABCI call durations: wraps the application CometBFT talks to, timing each handler by its ABCI method name.
import type { AbciApplication } from '../abci/server.ts';

/** Something that times a call under a method label. */
export interface AbciTimer {
  timeAbci<T>(method: string, fn: () => Promise<T> | T): Promise<T>;
}

/** The same application, every handler timed (labels: CometBFT's method names, e.g. finalize_block). */
export function instrumentAbci(app: AbciApplication, timer: AbciTimer): AbciApplication {
  return {
    info: (r) => timer.timeAbci('info', () => app.info(r)),
    initChain: (r) => timer.timeAbci('init_chain', () => app.initChain(r)),
    query: (r) => timer.timeAbci('query', () => app.query(r)),
    checkTx: (r) => timer.timeAbci('check_tx', () => app.checkTx(r)),
    prepareProposal: (r) => timer.timeAbci('prepare_proposal', () => app.prepareProposal(r)),
    processProposal: (r) => timer.timeAbci('process_proposal', () => app.processProposal(r)),
    finalizeBlock: (r) => timer.timeAbci('finalize_block', () => app.finalizeBlock(r)),
    commit: () => timer.timeAbci('commit', () => app.commit()),
    received: app.received?.bind(app),
    listSnapshots: app.listSnapshots?.bind(app),
    loadSnapshotChunk: app.loadSnapshotChunk?.bind(app),
    offerSnapshot: app.offerSnapshot ? (r) => timer.timeAbci('offer_snapshot', () => app.offerSnapshot!(r)) : undefined,
    applySnapshotChunk: app.applySnapshotChunk
      ? (r) => timer.timeAbci('apply_snapshot_chunk', () => app.applySnapshotChunk!(r))
      : undefined,
  };
}
