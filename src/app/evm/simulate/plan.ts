// eth_simulateV1's request rules that need no EVM: limits, block numbers and timestamps (geth's sanitizeChain:
// strictly increasing, defaults of +1 and +12 s, gaps filled with empty blocks), and the checks a transaction must
// pass before it runs, with geth's messages and codes.
import { SimulateError } from '../../../errors/index.ts';
import type { CallRequest } from '../../../primitives/callRequest.ts';
import type { BlockOverrides, StateOverrides } from '../../../primitives/overrides.ts';

/** geth's limits. */
export const MAX_SIMULATE_BLOCKS = 256;
export const MAX_SIMULATE_CALLS_PER_BLOCK = 5000;
export const MAX_SIMULATE_TOTAL_CALLS = 10000;
/** Seconds between simulated blocks whose time is not given. */
export const TIMESTAMP_INCREMENT = 12n;

/** One block as requested. */
export interface SimBlockInput {
  blockOverrides?: BlockOverrides;
  stateOverrides?: StateOverrides;
  calls: CallRequest[];
}

/** One block to simulate, with its number and time fixed. */
export interface SimBlockPlan {
  number: bigint;
  time: bigint;
  overrides: BlockOverrides;
  stateOverrides?: StateOverrides;
  calls: CallRequest[];
}

/** Checks the request's size limits (before any state is read). */
export function checkLimits(blocks: SimBlockInput[]): void {
  if (blocks.length === 0) throw new SimulateError('INVALID_PARAMS', 'empty input');
  if (blocks.length > MAX_SIMULATE_BLOCKS) throw new SimulateError('CLIENT_LIMIT_EXCEEDED', 'too many blocks');
  let total = 0;
  for (const b of blocks) {
    if (b.calls.length > MAX_SIMULATE_CALLS_PER_BLOCK) {
      throw new SimulateError(
        'CLIENT_LIMIT_EXCEEDED',
        `too many calls in block: ${b.calls.length} > ${MAX_SIMULATE_CALLS_PER_BLOCK}`,
      );
    }
    total += b.calls.length;
    if (total > MAX_SIMULATE_TOTAL_CALLS) {
      throw new SimulateError('CLIENT_LIMIT_EXCEEDED', `too many calls: ${total} > ${MAX_SIMULATE_TOTAL_CALLS}`);
    }
  }
}

/** Numbers and times for every block, empty blocks filling number gaps. */
export function planChain(blocks: SimBlockInput[], base: { number: bigint; time: bigint }): SimBlockPlan[] {
  const out: SimBlockPlan[] = [];
  let prevNumber = base.number;
  let prevTime = base.time;
  for (const b of blocks) {
    const o = b.blockOverrides ?? {};
    const number = o.number ?? prevNumber + 1n;
    if (number <= prevNumber) {
      throw new SimulateError('BLOCK_NUMBER_INVALID', `block numbers must be in order: ${number} <= ${prevNumber}`);
    }
    if (number - base.number > BigInt(MAX_SIMULATE_BLOCKS)) {
      throw new SimulateError('CLIENT_LIMIT_EXCEEDED', 'too many blocks');
    }
    for (let n = prevNumber + 1n; n < number; n++) {
      prevTime += TIMESTAMP_INCREMENT;
      out.push({ number: n, time: prevTime, overrides: {}, calls: [] });
    }
    prevNumber = number;
    let time: bigint;
    if (o.time === undefined) time = prevTime + TIMESTAMP_INCREMENT;
    else {
      time = o.time;
      if (time <= prevTime) {
        throw new SimulateError('BLOCK_TIMESTAMP_INVALID', `block timestamps must be in order: ${time} <= ${prevTime}`);
      }
    }
    prevTime = time;
    const plan: SimBlockPlan = { number, time, overrides: o, calls: b.calls };
    if (b.stateOverrides) plan.stateOverrides = b.stateOverrides;
    out.push(plan);
  }
  return out;
}

/** Checks a request's limits, then numbers and times its blocks on top of `base`. */
export function planRequest(
  blocks: SimBlockInput[],
  base: { number: bigint; header: { timestamp: bigint } },
): SimBlockPlan[] {
  checkLimits(blocks);
  return planChain(blocks, { number: base.number, time: base.header.timestamp });
}

/** What the pre-execution checks read about the sender. */
export interface SenderState {
  nonce: bigint;
  balance: bigint;
}

/** A call's transaction fields after defaults (the gas price is what it pays per gas). */
export interface SimTxFields {
  from: string;
  nonce: bigint;
  gas: bigint;
  value: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  intrinsicGas: bigint;
}

/** geth's wrapping of a rejected message: "err: <reason> (supplied gas N)". */
function rejected(reason: ConstructorParameters<typeof SimulateError>[0], text: string, gas: bigint): SimulateError {
  return new SimulateError(reason, `err: ${text} (supplied gas ${gas})`);
}

/**
 * The checks geth's state transition makes before a simulated call runs. Nonces and the fee cap against the base
 * fee only under `validation` (or for a call that names fees); funds and intrinsic gas always.
 */
export function precheck(tx: SimTxFields, sender: SenderState, baseFee: bigint, validate: boolean): void {
  const g = tx.gas;
  if (validate) {
    if (tx.nonce < sender.nonce) {
      throw rejected('NONCE_TOO_LOW', `nonce too low: address ${tx.from}, tx: ${tx.nonce} state: ${sender.nonce}`, g);
    }
    if (tx.nonce > sender.nonce) {
      throw rejected('NONCE_TOO_HIGH', `nonce too high: address ${tx.from}, tx: ${tx.nonce} state: ${sender.nonce}`, g);
    }
    if (sender.nonce >= 2n ** 64n - 1n) {
      // geth has no code of its own for this one: it comes back as an internal error.
      throw rejected('INTERNAL', `nonce has max value: address ${tx.from}, nonce: ${sender.nonce}`, g);
    }
  }
  if (validate || tx.maxFeePerGas > 0n || tx.maxPriorityFeePerGas > 0n) {
    if (tx.maxFeePerGas < tx.maxPriorityFeePerGas) {
      throw rejected(
        'INVALID_PARAMS',
        `max priority fee per gas higher than max fee per gas: address ${tx.from}, maxPriorityFeePerGas: ${tx.maxPriorityFeePerGas}, maxFeePerGas: ${tx.maxFeePerGas}`,
        g,
      );
    }
    if (tx.maxFeePerGas < baseFee) {
      throw rejected(
        'BASE_FEE_TOO_LOW',
        `max fee per gas less than block base fee: address ${tx.from}, maxFeePerGas: ${tx.maxFeePerGas}, baseFee: ${baseFee}`,
        g,
      );
    }
  }
  const want = tx.gas * tx.maxFeePerGas + tx.value;
  if (sender.balance < want) {
    throw rejected(
      'INSUFFICIENT_FUNDS',
      `insufficient funds for gas * price + value: address ${tx.from} have ${sender.balance} want ${want}`,
      g,
    );
  }
  if (tx.gas < tx.intrinsicGas) {
    throw rejected('INTRINSIC_GAS', `intrinsic gas too low: have ${tx.gas}, want ${tx.intrinsicGas}`, g);
  }
}
