// The ethereumjs side of state overrides, kept for the test oracles only (the ethereumjs simulator the engine's
// eth_simulateV1 is checked against): a plan's precompile moves on an ethereumjs EVM's precompile table, its
// account writes into an ethereumjs state, and the private-member surgery that makes moved precompiles findable.
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address } from '@ethereumjs/util';
import type { PrecompileMove } from '../../src/app/evm/overrides.ts';
import { bytesToHex } from '../../src/primitives/hex.ts';
import type { AccountOverride } from '../../src/primitives/overrides.ts';

/** Applies a plan's precompile moves to an ethereumjs EVM's precompile table (keys: hex without 0x). */
export function movePrecompiles(table: Map<string, unknown>, moves: PrecompileMove[]): void {
  for (const m of moves) {
    const from = bytesToHex(m.from).slice(2);
    const fn = table.get(from);
    if (m.to !== undefined && fn !== undefined) table.set(bytesToHex(m.to).slice(2), fn);
    table.delete(from);
  }
}

/**
 * Writes a plan's account overrides into an ethereumjs state (inside the caller's checkpoint). The
 * simulate oracle's (the ethereumjs simulator kept for the differential test).
 */
export async function writeAccountOverrides(state: MerkleStateManager, accounts: AccountOverride[]): Promise<void> {
  for (const o of accounts) {
    const addr = new Address(o.address);
    if (o.nonce !== undefined || o.balance !== undefined) {
      const acc = (await state.getAccount(addr)) ?? new Account();
      if (o.nonce !== undefined) acc.nonce = o.nonce;
      if (o.balance !== undefined) acc.balance = o.balance;
      await state.putAccount(addr, acc);
    }
    if (o.code !== undefined) await state.putCode(addr, o.code);
    if (o.state !== undefined) {
      await state.clearStorage(addr);
      for (const [slot, value] of o.state) await state.putStorage(addr, slot, value);
    }
    if (o.stateDiff !== undefined) {
      if ((await state.getAccount(addr)) === undefined) await state.putAccount(addr, new Account());
      for (const [slot, value] of o.stateDiff) await state.putStorage(addr, slot, value);
    }
  }
}

/**
 * Splits an ethereumjs EVM's precompile table in two: the returned live table (where calls find precompiles, and
 * where moves apply) and the fork's own set, which runTx keeps warming at each transaction. geth warms its static
 * precompile list too, so a precompile moved away leaves its old address warm and its new one cold.
 */
export function livePrecompiles(evm: unknown): Map<string, unknown> {
  const e = evm as {
    _precompiles: Map<string, unknown>;
    getPrecompile: (address: Address | string) => unknown;
  };
  const live = e._precompiles;
  const forkSet = new Map(live);
  e.getPrecompile = (address) =>
    live.get(
      typeof address === 'string'
        ? address.slice(2).padStart(40, '0').toLowerCase()
        : bytesToHex(address.bytes).slice(2),
    );
  Object.defineProperty(e, 'precompiles', { get: () => forkSet, configurable: true });
  return live;
}
