// eth_call, eth_estimateGas and eth_createAccessList on a forked chain at a block below the fork block N: the local
// chain has no state there, so the upstream runs them at that block. The decoded request and overrides go back to
// JSON in the upstream's wire format; its errors map as every other upstream read's (UpstreamError).
import { quantity } from '../../../app/fork/history.ts';
import type { BlockSelector } from '../../../primitives/blockSelector.ts';
import type { CallRequest } from '../../../primitives/callRequest.ts';
import { bytesToHex } from '../../../primitives/hex.ts';
import type { BlockOverrides, StateOverrides } from '../../../primitives/overrides.ts';
import type { Needs } from '../../context.ts';
import { belowFork } from './forkHistory.ts';

/** What the proxy reads. */
type Ctx = Needs<'calls' | 'chain'>;

/** Drops absent fields, so the upstream sees only what the caller sent. */
function defined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

const q = (n: bigint | undefined): string | undefined => (n === undefined ? undefined : quantity(n));
const h = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : bytesToHex(b));

/** A call request as JSON-RPC sends it. */
export function callRequestJson(r: CallRequest): Record<string, unknown> {
  return defined({
    from: h(r.from),
    to: h(r.to),
    gas: q(r.gas),
    gasPrice: q(r.gasPrice),
    maxFeePerGas: q(r.maxFeePerGas),
    maxPriorityFeePerGas: q(r.maxPriorityFeePerGas),
    value: q(r.value),
    input: h(r.data),
    nonce: q(r.nonce),
    accessList: r.accessList?.map((a) => ({
      address: bytesToHex(a.address),
      storageKeys: a.storageKeys.map((k) => bytesToHex(k)),
    })),
    type: q(r.type),
    chainId: q(r.chainId),
  });
}

/** State overrides as JSON-RPC sends them (an object keyed by address). */
export function stateOverridesJson(s: StateOverrides): Record<string, unknown> {
  const slots = (v: Array<[Uint8Array, Uint8Array]> | undefined) =>
    v === undefined ? undefined : Object.fromEntries(v.map(([k, x]) => [bytesToHex(k), bytesToHex(x)]));
  return Object.fromEntries(
    s.map((a) => [
      bytesToHex(a.address),
      defined({
        nonce: q(a.nonce),
        code: h(a.code),
        balance: q(a.balance),
        state: slots(a.state),
        stateDiff: slots(a.stateDiff),
        movePrecompileToAddress: h(a.movePrecompileTo),
      }),
    ]),
  );
}

/** Block overrides as JSON-RPC sends them (the call-level fields; simulate-only ones have no meaning here). */
export function blockOverridesJson(b: BlockOverrides): Record<string, unknown> {
  return defined({
    number: q(b.number),
    difficulty: q(b.difficulty),
    time: q(b.time),
    gasLimit: q(b.gasLimit),
    feeRecipient: h(b.feeRecipient),
    prevRandao: h(b.prevRandao),
    baseFeePerGas: q(b.baseFeePerGas),
    blobBaseFee: q(b.blobBaseFee),
  });
}

/**
 * The upstream's answer to `method` when `sel` names a block below a forked chain's fork block; undefined when the
 * call runs locally (not forked, or at or above N).
 */
export function upstreamCall(
  ctx: Ctx,
  method: 'eth_call' | 'eth_estimateGas' | 'eth_createAccessList',
  req: CallRequest,
  sel: BlockSelector,
  state?: StateOverrides,
  block?: BlockOverrides,
): Promise<unknown> | undefined {
  const up = ctx.calls.upstream;
  if (up === undefined) return undefined;
  const n = belowFork(up, sel);
  if (n === undefined) return undefined;
  const params: unknown[] = [callRequestJson(req), quantity(n)];
  if (state !== undefined || block !== undefined) params.push(state === undefined ? {} : stateOverridesJson(state));
  if (block !== undefined) params.push(blockOverridesJson(block));
  return up.history.call(method, params);
}
