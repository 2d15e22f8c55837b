// Intrinsic gas of a transaction (EIP-2028 calldata, EIP-2930 access lists, EIP-3860 initcode words,
// EIP-7702 authorizations) and the EIP-7623 calldata floor (Prague).
import type { Fork, Tx } from '../types.ts';
import { forkRules } from '../forks.ts';

const TX_BASE = 21000;
const TX_CREATE = 32000;
const INITCODE_WORD = 2;
const ACCESS_LIST_ADDRESS = 2400;
const ACCESS_LIST_KEY = 1900;
/** EIP-7702 PER_EMPTY_ACCOUNT_COST: charged per authorization tuple. */
const PER_EMPTY_ACCOUNT_COST = 25000;
const TOKEN_COST = 4;
const FLOOR_TOKEN_COST = 10;

/** The gas a tx pays before its first opcode, and the EIP-7623 floor its gas used cannot go below. */
export interface IntrinsicGas {
  gas: bigint;
  /** 0n before Prague (EIP-7623). */
  floor: bigint;
}

/**
 * The non-zero bytes of `data`, in a function of its own: a long calldata (a contract's deployment) makes V8 compile
 * this loop on the stack (OSR), and with the loop inside intrinsicGas that code was entered again at the loop by
 * every later tx and thrown out at the first statement after it (no type feedback there when it was compiled): a
 * deopt per tx, ~1,200 in 8 measured 500-tx ERC20 blocks (node --trace-deopt, bench/appBlockDriver.ts).
 */
function nonZeroBytes(data: Uint8Array): number {
  let count = 0;
  for (let i = 0; i < data.length; i++) if (data[i] !== 0) count++;
  return count;
}

/** Intrinsic gas and calldata floor of `tx` under `fork`. */
export function intrinsicGas(tx: Tx, fork: Fork): IntrinsicGas {
  // Plain numbers, converted once: every term is far below 2^53 (calldata and lists are bounded by the block).
  const n = tx.data.length;
  // A zero byte is one token, any other four.
  const tokens = n + nonZeroBytes(tx.data) * 3;
  let gas = TX_BASE + tokens * TOKEN_COST;
  if (tx.to === undefined) gas += TX_CREATE + INITCODE_WORD * Math.ceil(n / 32);
  for (const item of tx.accessList) gas += ACCESS_LIST_ADDRESS + ACCESS_LIST_KEY * item.storageKeys.length;
  gas += PER_EMPTY_ACCOUNT_COST * tx.authorizationList.length;
  const floor = forkRules(fork).calldataFloor ? BigInt(TX_BASE + tokens * FLOOR_TOKEN_COST) : 0n;
  return { gas: BigInt(gas), floor };
}
