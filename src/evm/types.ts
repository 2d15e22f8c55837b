// The engine's contract with the world around it. Everything above src/evm/ (the app, the state-test runner,
// the differential fuzzer) talks to the engine only through these types and the entry points named here.
// The engine imports nothing from Kestrel outside src/evm/ (and no @ethereumjs package).
//
// Representation choices (measured ones may change inside the engine, not here):
// - 256-bit words, balances, nonces, storage keys and values are `bigint`.
// - Addresses are `bigint` (160-bit), so a stack word becomes an address with one mask and Maps key on them.
// - Byte strings are `Uint8Array`. Code hashes and block hashes are 32-byte `Uint8Array`.
// - Gas inside the interpreter is a plain `number`; the handler proves the bound (a tx's gas is clamped to
//   2^53 for the interpreter while fee arithmetic stays exact in bigint).

/** The forks the engine runs, selected per run. */
export type Fork = 'Cancun' | 'Prague' | 'Osaka';

/** A 160-bit account address. */
export type Address = bigint;

/** An account as the pre-state holds it. `undefined` from {@link StateReader.account} means "does not exist". */
export interface AccountInfo {
  nonce: bigint;
  balance: bigint;
  /** keccak256 of the code (keccak256 of the empty string for an account without code). */
  codeHash: Uint8Array;
  /** True when the account's storage trie is empty (EIP-7610 counts non-empty storage as a collision). */
  storageEmpty: boolean;
}

/**
 * Synchronous reads of the state a block or call starts from. Implemented by the app over LevelDB with flat
 * caches, by the state-test runner over the fixture's `pre`, and by the fuzzer. Never written by the engine.
 */
export interface StateReader {
  account(address: Address): AccountInfo | undefined;
  /** Code by its hash; the engine only asks for hashes an account reported. */
  code(codeHash: Uint8Array): Uint8Array;
  /** A storage slot's value at the start (0n when absent). */
  storage(address: Address, slot: bigint): bigint;
  /** BLOCKHASH of an earlier block (the engine applies the 256-block window and asks only inside it). */
  blockHash(number: bigint): Uint8Array;
}

/** The block a transaction runs in. */
export interface BlockEnv {
  number: bigint;
  timestamp: bigint;
  coinbase: Address;
  gasLimit: bigint;
  baseFee: bigint;
  /** PREVRANDAO (post-merge DIFFICULTY) as a 256-bit word. */
  prevRandao: bigint;
  /** The block's blob base fee; compute it with `blobBaseFee(excessBlobGas, fork)` from src/evm/. */
  blobBaseFee: bigint;
  chainId: bigint;
}

/** One EIP-2930 access-list entry. */
export interface AccessListItem {
  address: Address;
  storageKeys: bigint[];
}

/** One EIP-7702 authorization tuple as signed; the engine recovers the authority and skips invalid ones. */
export interface Authorization {
  chainId: bigint;
  address: Address;
  nonce: bigint;
  yParity: bigint;
  r: bigint;
  s: bigint;
}

/** A transaction with its sender already recovered. Fields a type does not have are left at their zero value. */
export interface Tx {
  type: 0 | 1 | 2 | 3 | 4;
  from: Address;
  /** undefined = contract creation. */
  to: Address | undefined;
  nonce: bigint;
  gasLimit: bigint;
  value: bigint;
  data: Uint8Array;
  /** Legacy and 2930 txs. */
  gasPrice: bigint;
  /** 1559, 4844, 7702 txs. */
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  accessList: AccessListItem[];
  /** 4844 txs. */
  maxFeePerBlobGas: bigint;
  blobVersionedHashes: Uint8Array[];
  /** 7702 txs. */
  authorizationList: Authorization[];
}

/** Why a transaction cannot be included at all (no state change, no receipt). */
export type TxInvalidReason =
  | 'NONCE_TOO_LOW'
  | 'NONCE_TOO_HIGH'
  | 'NONCE_MAX'
  | 'INSUFFICIENT_FUNDS'
  | 'INTRINSIC_GAS_TOO_LOW'
  | 'FLOOR_DATA_GAS_TOO_LOW'
  | 'GAS_LIMIT_EXCEEDS_BLOCK'
  /** EIP-7825 (Osaka): above the 2^24 cap on a transaction's gas limit. */
  | 'GAS_LIMIT_EXCEEDS_MAXIMUM'
  | 'FEE_CAP_BELOW_BASE_FEE'
  | 'TIP_ABOVE_FEE_CAP'
  | 'SENDER_NOT_EOA'
  | 'INITCODE_TOO_LARGE'
  | 'BLOB_FEE_CAP_TOO_LOW'
  | 'BLOB_HASH_VERSION'
  | 'BLOB_COUNT'
  | 'BLOB_CREATE'
  | 'EMPTY_AUTHORIZATION_LIST'
  | 'SETCODE_CREATE'
  | 'TYPE_NOT_SUPPORTED'
  | 'GAS_ALLOWANCE_EXCEEDED';

/** How a frame or a transaction ended. */
export type ExecStatus =
  | 'success'
  | 'revert'
  | 'out_of_gas'
  | 'invalid_opcode'
  | 'stack_underflow'
  | 'stack_overflow'
  | 'bad_jump'
  | 'static_violation'
  | 'return_data_out_of_bounds'
  | 'call_depth'
  | 'insufficient_balance'
  | 'create_collision'
  | 'code_too_large'
  | 'invalid_code_prefix'
  | 'nonce_overflow'
  | 'precompile_failure';

/** A log entry as emitted. */
export interface Log {
  address: Address;
  topics: bigint[];
  data: Uint8Array;
}

/** What a valid transaction did. */
export interface TxResult {
  status: ExecStatus;
  /** Gas charged to the sender: after the refund and the EIP-7623 floor. */
  gasUsed: bigint;
  /** The refund that was applied (capped per EIP-3529). */
  gasRefund: bigint;
  output: Uint8Array;
  logs: Log[];
  /** Set for a successful contract creation. */
  createdAddress?: Address;
}

/** The outcome of {@link ExecuteTransaction}: a result, or the reason the tx is invalid (state untouched). */
export type TxOutcome = { ok: true; result: TxResult } | { ok: false; reason: TxInvalidReason; message: string };

/** How one account ended after the transactions run so far on a {@link WorldState}. */
export interface AccountDiff {
  address: Address;
  /** The account no longer exists (self-destructed in its creating tx, or touched-and-empty per EIP-161). */
  deleted: boolean;
  nonce: bigint;
  balance: bigint;
  /** Present when the code changed (creation or 7702 delegation). */
  code?: Uint8Array;
  codeHash: Uint8Array;
  /** True when the prior storage is to be wiped before `storage` applies (the account was re-created). */
  storageCleared: boolean;
  /** Changed slots; value 0n means delete. */
  storage: Map<bigint, bigint>;
}

/**
 * Chain-level policy that differs from pure Ethereum. Ethereum (and the state tests): the base fee is burned
 * and the priority fee goes to the coinbase. Kestrel: the whole fee goes to the coinbase.
 */
export interface ChainRules {
  burnBaseFee: boolean;
  /** Where the fees go instead of the coinbase (a chain whose fees are distributed to its stakers); COINBASE is unchanged. */
  feeRecipient?: Address;
}

/** Options of one transaction run. */
export interface ExecOptions {
  fork: Fork;
  rules: ChainRules;
  /** eth_call / estimateGas: skip the nonce, balance-for-fees and fee-cap checks (geth's NoBaseFee + skipped nonce). */
  isCall?: boolean;
  tracer?: Tracer;
  /**
   * A wall-clock bound (a Date.now() value): past it, execution throws ExecutionAborted (deadline.ts), leaving the
   * WorldState mid-transaction (discard it). Checked every 256 taken jumps and at every frame entry, since every
   * loop of EVM code passes through one of them; absent, it costs one comparison per jump.
   */
  deadline?: number;
  /**
   * The precompiles calls find, replacing the fork's table (eth_call's state overrides move or remove them).
   * Warmth stays the fork's: the fork's precompile addresses are warm in every transaction, a moved one is not.
   */
  precompiles?: ReadonlyMap<Address, Precompile>;
}

/** Records every address and slot a transaction warms (EIP-2929), reverted frames included (eth_createAccessList). */
export interface AccessLog {
  /** Address → the slots warmed in it. */
  readonly touched: Map<Address, Set<bigint>>;
}

/**
 * The step hook. Costs nothing when absent. The interpreter calls `step` before each opcode runs; the rest at
 * frame boundaries. Field names follow geth's struct logger so tracers port directly.
 */
export interface Tracer {
  txStart?(tx: Tx): void;
  txEnd?(result: TxResult): void;
  enter?(frame: FrameStart): void;
  exit?(frame: FrameEnd): void;
  step?(step: StepView): void;
  /** Called when an opcode fails (after `step`). */
  fault?(step: StepView, status: ExecStatus): void;
  /**
   * A stateful precompile is about to read or write an account's balance (`slot` undefined) or a storage slot:
   * state a tracer cannot see in opcodes (the prestate tracer records it).
   */
  stateAccess?(address: Address, slot?: bigint): void;
}

/** The kinds of frame. */
export type CallKind = 'CALL' | 'CALLCODE' | 'DELEGATECALL' | 'STATICCALL' | 'CREATE' | 'CREATE2';

/** A frame about to run. */
export interface FrameStart {
  kind: CallKind;
  depth: number;
  from: Address;
  to: Address;
  /** The address whose code runs (differs from `to` for DELEGATECALL/CALLCODE and 7702 delegation). */
  codeAddress: Address;
  input: Uint8Array;
  gas: number;
  value: bigint;
}

/** A frame that ended. */
export interface FrameEnd {
  depth: number;
  status: ExecStatus;
  gasUsed: number;
  output: Uint8Array;
}

/** A read-only view of the interpreter before an opcode; valid only during the `step` call. */
export interface StepView {
  pc: number;
  op: number;
  gas: number;
  /** The opcode's static cost plus what can be known before it runs (memory expansion, access costs). */
  cost: number;
  depth: number;
  /** Refund counter of the transaction so far. */
  refund: number;
  address: Address;
  /** Stack bottom-first; a copy is taken only if the tracer asks. */
  stack(): readonly bigint[];
  memory(): Uint8Array;
  returnData(): Uint8Array;
  /** The current value of a storage slot of the running contract (for the struct logger's `storage`). */
  storage(slot: bigint): bigint;
}

/** A precompile: pure function of its input. Returns undefined on failure (all gas consumed). */
export interface PurePrecompile {
  readonly stateful?: undefined;
  /** Gas for this input; may exceed the available gas (the caller checks). */
  gas(input: Uint8Array, fork: Fork): bigint;
  /** The output, or undefined when the input is invalid. */
  run(input: Uint8Array, fork: Fork): Uint8Array | undefined;
}

/**
 * The state a stateful precompile may read and write: every write is journaled in the running transaction, so a
 * revert of the precompile's frame or of any caller above it undoes it (and its logs).
 */
export interface PrecompileHost {
  balance(address: Address): bigint;
  /** Sets a balance outright (module accounts minting or burning). */
  setBalance(address: Address, value: bigint): void;
  storage(address: Address, slot: bigint): bigint;
  setStorage(address: Address, slot: bigint, value: bigint): void;
  /** Emits a log from `address`. */
  log(address: Address, topics: bigint[], data: Uint8Array): void;
}

/** One call of a stateful precompile. */
export interface PrecompileCall {
  readonly input: Uint8Array;
  /** msg.sender of the frame. */
  readonly caller: Address;
  /** The address the frame runs at (the precompile's own for CALL and STATICCALL). */
  readonly address: Address;
  readonly codeAddress: Address;
  readonly value: bigint;
  readonly kind: CallKind;
  readonly isStatic: boolean;
  readonly origin: Address;
  readonly block: BlockEnv;
  readonly fork: Fork;
  /** Gas available to the frame. */
  readonly gas: bigint;
  readonly host: PrecompileHost;
}

/**
 * What a stateful precompile returns: success with its output, a revert with revert data (the frame's writes are
 * undone, unused gas returned), or a failure (undone, all gas consumed). `gasUsed` above the available gas is an
 * out-of-gas failure.
 */
export type PrecompileOutcome =
  | { status: 'success'; output: Uint8Array; gasUsed: bigint }
  | { status: 'revert'; output: Uint8Array; gasUsed: bigint }
  | { status: 'failure' };

/** A precompile with state: the chain's modules (staking, distribution, …) reached from the EVM. */
export interface StatefulPrecompile {
  readonly stateful: true;
  call(c: PrecompileCall): PrecompileOutcome;
}

/** Either kind of precompile. */
export type Precompile = PurePrecompile | StatefulPrecompile;
