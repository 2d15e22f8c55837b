// Stateful precompiles: the host they write through (the running transaction's journaled WorldState, so a revert
// anywhere above undoes their writes and logs) and the frame step that runs them.
import type { Address, Log, Precompile, PrecompileHost, StatefulPrecompile, Tracer } from './types.ts';
import type { WorldState } from './state/world.ts';

/**
 * A host over `world` whose logs go to `logs` (the transaction's log list, truncated on a frame revert); a tracer
 * that watches state hears of every account and slot before it is read or written.
 */
export function worldHost(world: WorldState, logs: Log[], tracer?: Tracer): PrecompileHost {
  const host = plainHost(world, logs);
  const see = tracer?.stateAccess;
  if (see === undefined) return host;
  return {
    balance: (a) => (see.call(tracer, a), host.balance(a)),
    setBalance: (a, v) => (see.call(tracer, a), host.setBalance(a, v)),
    storage: (a, s) => (see.call(tracer, a, s), host.storage(a, s)),
    setStorage: (a, s, v) => (see.call(tracer, a, s), host.setStorage(a, s, v)),
    log: host.log,
  };
}

function plainHost(world: WorldState, logs: Log[]): PrecompileHost {
  return {
    balance: (address) => world.account(address).balance,
    setBalance(address, value) {
      const a = world.account(address);
      world.setBalance(a, value);
    },
    storage: (address, slot) => world.storage(world.account(address), slot),
    setStorage(address, slot, value) {
      const a = world.account(address);
      // A module's state lives in its account's storage: a nonce keeps the account from ever being "empty"
      // (EIP-161 would delete an empty touched account, and its storage with it).
      if (a.nonce === 0n) world.setNonce(a, 1n);
      world.setStorage(a, slot, value);
    },
    log(address, topics, data) {
      logs.push({ address, topics, data });
    },
  };
}

const statefulSets = new WeakMap<ReadonlyMap<Address, Precompile>, ReadonlySet<Address>>();

/** The addresses of a table's stateful precompiles (warm in every transaction, as the fork's own are). */
export function statefulAddresses(table: ReadonlyMap<Address, Precompile>): ReadonlySet<Address> {
  let set = statefulSets.get(table);
  if (set === undefined) {
    const s = new Set<Address>();
    for (const [a, p] of table) if (p.stateful === true) s.add(a);
    set = s;
    statefulSets.set(table, set);
  }
  return set;
}

/** Whether a precompile has state. */
export function isStateful(p: Precompile): p is StatefulPrecompile {
  return p.stateful === true;
}
