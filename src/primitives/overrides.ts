// State and block overrides of a call (eth_call, eth_estimateGas, debug_traceCall, eth_createAccessList,
// eth_simulateV1), decoded once into typed values. Absent fields stay undefined (geth's OverrideAccount and
// BlockOverrides semantics).

/** One storage slot and its value, both 32 bytes. */
export type SlotValue = [slot: Uint8Array, value: Uint8Array];

/** What to change in one account before the call runs. */
export interface AccountOverride {
  address: Uint8Array;
  nonce?: bigint;
  code?: Uint8Array;
  balance?: bigint;
  /** Replaces the whole storage with these slots. */
  state?: SlotValue[];
  /** Sets these slots, keeping the others. */
  stateDiff?: SlotValue[];
  /** Moves the precompile at `address` here (the address itself then runs its own code, if any). */
  movePrecompileTo?: Uint8Array;
}

/** Account overrides, in ascending address order (geth applies them in that order, so errors are stable). */
export type StateOverrides = AccountOverride[];

/** Header fields a call may run under instead of the block's own. */
export interface BlockOverrides {
  number?: bigint;
  /** Accepted and ignored after the merge, as geth does (DIFFICULTY reads prevRandao). */
  difficulty?: bigint;
  time?: bigint;
  gasLimit?: bigint;
  feeRecipient?: Uint8Array;
  prevRandao?: Uint8Array;
  baseFeePerGas?: bigint;
  blobBaseFee?: bigint;
  /** eth_simulateV1 only. */
  beaconRoot?: Uint8Array;
  /** eth_simulateV1 only: withdrawals credited at the start of the simulated block. */
  withdrawals?: Withdrawal[];
}

/** An EIP-4895 withdrawal (amount in gwei). */
export interface Withdrawal {
  index: bigint;
  validatorIndex: bigint;
  address: Uint8Array;
  amount: bigint;
}

/** Everything a call may override. */
export interface CallOverrides {
  state?: StateOverrides;
  block?: BlockOverrides;
}
