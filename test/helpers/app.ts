// An in-process KestrelApp over LevelDB on the dev genesis, for the unit tests of the app, its consensus drivers,
// pruning and snapshots (each used to build the same stack by hand).
import { KestrelApp, type AppDeps } from '../../src/app/app.ts';
import { createChainCommon } from '../../src/app/evm/common.ts';
import { makeGenesisDoc, parseGenesis, type Genesis } from '../../src/app/genesis.ts';
import { StateDb } from '../../src/app/state/stateDb.ts';
import { Bank } from '../../src/app/bank/bank.ts';
import { BankStore } from '../../src/app/bank/store.ts';
import { SnapshotRestore } from '../../src/snapshots/restore.ts';
import { ChainStore } from '../../src/store/chainStore.ts';
import { KvStore } from '../../src/store/kv.ts';

/** The dev genesis document (fixed time, so every run makes the same hashes). */
export const DEV_GENESIS_DOC = makeGenesisDoc({
  chainId: 'kestrel_9000-1',
  evmDenom: 'akestrel',
  prefix: 'kestrel',
  dev: true,
  now: new Date('2024-01-01T00:00:00Z'),
});

/** The parsed dev genesis. */
export const DEV_GENESIS: Genesis = parseGenesis(DEV_GENESIS_DOC, 'kestrel');

/** The Common the test apps share (EIP-155 id 9000). */
export const TEST_COMMON = createChainCommon(9000n);

/** An opened test app and the stores under it. */
export interface TestApp {
  kv: KvStore;
  chain: ChainStore;
  state: StateDb;
  app: KestrelApp;
}

/**
 * Opens a KestrelApp on the dev genesis with its LevelDB at `path`. `extra` may override any dependency; it sees
 * the stores first (a pruner needs them before the app exists).
 */
export async function openTestApp(
  path: string,
  extra: (stores: { kv: KvStore; chain: ChainStore; state: StateDb }) => Partial<AppDeps> = () => ({}),
): Promise<TestApp> {
  const kv = await KvStore.open(path);
  const chain = new ChainStore(kv, TEST_COMMON);
  const state = new StateDb(kv, TEST_COMMON);
  const app = await KestrelApp.open({
    kv,
    chain,
    state,
    common: TEST_COMMON,
    genesis: DEV_GENESIS,
    evmChainId: 9000n,
    minGasPrice: 0n,
    etherbase: new Uint8Array(20).fill(0xee),
    ...extra({ kv, chain, state }),
  });
  return { kv, chain, state, app };
}

/**
 * openTestApp with its bank and a state-sync SnapshotRestore wired as the node wires them (a restore reloads the
 * app over the restored state): the snapshot tests and bench/snapshotRestore.ts.
 */
export async function openSnapshotApp(
  path: string,
  log: (line: string) => void,
): Promise<TestApp & { bank: Bank; restore: SnapshotRestore }> {
  const t = await openTestApp(path);
  const { kv, state, app } = t;
  const bank = new Bank(await BankStore.open(kv, DEV_GENESIS), state, DEV_GENESIS);
  const restore = new SnapshotRestore({
    kv,
    height: () => app.head.number,
    appHashOf: (r) => bank.appHashOf(r),
    restored: async () => {
      state.checkRoots = true;
      await app.reload();
    },
    log,
  });
  return { ...t, bank, restore };
}
