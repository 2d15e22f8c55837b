// A decoded transaction call object (eth_call, eth_estimateGas, eth_sendTransaction, …). Absent fields stay
// undefined so each consumer can apply its own defaults (geth's TransactionArgs semantics).

/** One EIP-2930 access list entry. */
export interface AccessListItem {
  address: Uint8Array;
  storageKeys: Uint8Array[];
}

/** Decoded transaction call object. `data` is the merged data/input field. */
export interface CallRequest {
  from?: Uint8Array;
  to?: Uint8Array;
  gas?: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  value?: bigint;
  data?: Uint8Array;
  nonce?: bigint;
  accessList?: AccessListItem[];
  type?: bigint;
  chainId?: bigint;
}
