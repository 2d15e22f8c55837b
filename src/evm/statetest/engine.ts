// What the state-test runner (and the differential fuzzer) needs from an engine: Kestrel's own, or an oracle.
import type { AccountDiff, Address, BlockEnv, Fork, StateReader, Tx, TxOutcome } from '../types.ts';

/** One transaction's outcome and the state it left, relative to the reader it started from. */
export interface ExecutedTx {
  outcome: TxOutcome;
  /** Empty when the tx was rejected. */
  diff: AccountDiff[];
  /** An oracle's own post-state root, when it computes one (cross-checked against the root of `diff`). */
  root?: Uint8Array;
}

/** An account (and its storage slots) of a pre-state; a StateReader cannot enumerate, so pre-states list them. */
export interface SeedAccount {
  address: Address;
  storageSlots: readonly bigint[];
}

/** A StateReader that can also list its accounts (an oracle must copy the whole pre-state into its own store). */
export interface EnumerableReader extends StateReader {
  seeds(): SeedAccount[];
}

/** Block facts an engine may want beyond BlockEnv (an oracle derives the blob base fee itself). */
export interface BlockExtras {
  excessBlobGas: bigint;
}

/** An engine as the runner drives it: one fresh world per transaction, Ethereum's fee rules. */
export interface StateTestEngine {
  /** Loads what execution needs (WebAssembly, tables); awaited once before the first case. */
  init(): Promise<void>;
  /** The blob base fee of a block with this excess blob gas under `fork`'s parameters. */
  blobBaseFee(excessBlobGas: bigint, fork: Fork): bigint;
  /** Runs `tx` on a fresh world over `reader`. */
  execute(
    reader: EnumerableReader,
    block: BlockEnv,
    tx: Tx,
    fork: Fork,
    extras: BlockExtras,
  ): ExecutedTx | Promise<ExecutedTx>;
}
