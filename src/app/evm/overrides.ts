// State overrides as an overlay over the state a call reads, and block overrides over its block context. The
// validation and ordering (geth's) are engine-neutral: planOverrides() turns overrides into precompile moves and
// account writes, which Kestrel's engine (src/evm/) applies through its StateReader overlay and precompile map.
import { toChecksumAddress } from '@ethereumjs/util';
import { OverrideError } from '../../errors/index.ts';
import { bytesToHex } from '../../primitives/hex.ts';
import type { AccountOverride, BlockOverrides, StateOverrides } from '../../primitives/overrides.ts';
import type { BlockContext } from '../block.ts';

/** A precompile leaves `from`; when `to` is set it now answers there. Applied in order. */
export interface PrecompileMove {
  from: Uint8Array;
  to?: Uint8Array;
}

/** What a set of overrides does, validated against the precompiles in force. */
export interface OverridePlan {
  precompiles: PrecompileMove[];
  accounts: AccountOverride[];
}

const checksum = (a: Uint8Array): string => toChecksumAddress(bytesToHex(a));
const key = (a: Uint8Array): string => bytesToHex(a);

/**
 * Validates overrides in address order against the precompile addresses in force, as geth's StateOverride.Apply
 * does: a move needs a precompile at the source and a destination no other override names; an address that
 * received a moved precompile cannot be overridden; any override of a precompile's address removes the precompile
 * there; `state` and `stateDiff` exclude each other.
 */
export function planOverrides(overrides: StateOverrides | undefined, precompiles: Iterable<Uint8Array>): OverridePlan {
  const plan: OverridePlan = { precompiles: [], accounts: [] };
  if (!overrides) return plan;
  const live = new Set<string>([...precompiles].map(key));
  const named = new Set(overrides.map((o) => key(o.address)));
  const movedHere = new Set<string>();
  for (const o of overrides) {
    const k = key(o.address);
    if (movedHere.has(k)) {
      throw new OverrideError(
        'OVERRIDDEN_BY_PRECOMPILE',
        `account ${checksum(o.address)} has already been overridden by a precompile`,
      );
    }
    const isPrecompile = live.has(k);
    if (o.movePrecompileTo !== undefined) {
      if (!isPrecompile)
        throw new OverrideError('NOT_PRECOMPILE', `account ${checksum(o.address)} is not a precompile`);
      if (named.has(key(o.movePrecompileTo))) {
        throw new OverrideError(
          'MOVE_TARGET_OVERRIDDEN',
          `account ${checksum(o.movePrecompileTo)} is already overridden`,
        );
      }
      live.add(key(o.movePrecompileTo));
      movedHere.add(key(o.movePrecompileTo));
    }
    if (isPrecompile) {
      live.delete(k);
      plan.precompiles.push(o.movePrecompileTo ? { from: o.address, to: o.movePrecompileTo } : { from: o.address });
    }
    if (o.state !== undefined && o.stateDiff !== undefined) {
      throw new OverrideError(
        'STATE_AND_STATE_DIFF',
        `account ${checksum(o.address)} has both 'state' and 'stateDiff'`,
      );
    }
    plan.accounts.push(o);
  }
  return plan;
}

/**
 * A block context with the overridden header fields. `beaconRoot` and `withdrawals` belong to eth_simulateV1;
 * elsewhere they are refused with geth's message. Difficulty is ignored after the merge.
 */
export function overrideContext(ctx: BlockContext, o: BlockOverrides | undefined, simulate = false): BlockContext {
  if (!o) return ctx;
  if (!simulate && o.beaconRoot !== undefined) {
    throw new OverrideError(
      'BLOCK_FIELD_UNSUPPORTED',
      'block override "beaconRoot" is not supported for this RPC method',
    );
  }
  if (!simulate && o.withdrawals !== undefined) {
    throw new OverrideError(
      'BLOCK_FIELD_UNSUPPORTED',
      'block override "withdrawals" is not supported for this RPC method',
    );
  }
  return {
    ...ctx,
    number: o.number ?? ctx.number,
    timestamp: o.time ?? ctx.timestamp,
    gasLimit: o.gasLimit ?? ctx.gasLimit,
    coinbase: o.feeRecipient ?? ctx.coinbase,
    mixHash: o.prevRandao ?? ctx.mixHash,
    baseFeePerGas: o.baseFeePerGas ?? ctx.baseFeePerGas,
  };
}
