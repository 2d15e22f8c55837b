// miner_ methods that exist for compatibility but cannot be honoured on a proof-of-stake chain. They answer
// -32004 with the reason (Hardhat's choice), not a silent `false`.
import { MethodNotSupportedError } from '../../../errors/index.ts';

/** Why each unsupported miner_ method cannot work here. */
export const UNSUPPORTED_MINER_METHODS = {
  miner_start:
    'Kestrel is proof of stake: blocks are produced by the consensus engine whenever the node runs (see --block-time), there is nothing to start',
  miner_setExtra:
    'Kestrel block headers carry no producer-chosen extra data (it is always empty, so every validator builds the same header)',
  miner_setEtherbase:
    "it has no effect under --consensus cometbft: each block's fees go to its proposer's fee recipient in genesis (app_state.fee_recipients), the same on every validator",
} as const;

/** The error an unsupported miner_ method answers with. */
export function unsupported(method: keyof typeof UNSUPPORTED_MINER_METHODS): MethodNotSupportedError {
  return new MethodNotSupportedError(`unsupported rpc function: ${method}: ${UNSUPPORTED_MINER_METHODS[method]}`);
}
