// Start-up and shutdown pieces of state dumps: the touched-state recorder hooked into the app's commits (with the
// genesis allocation recorded once), and --dump-state's file write.
import { rename, writeFile } from 'node:fs/promises';
import type { KestrelApp } from '../app.ts';
import type { Genesis } from '../genesis.ts';
import type { KvStore } from '../../store/kv.ts';
import type { AnvilState } from './anvilState.ts';
import { TouchedState } from './touched.ts';

/** Records the genesis allocation's accounts and slots (once), and every later block's writes. */
export async function recordTouchedState(kv: KvStore, app: KestrelApp, genesis: Genesis): Promise<TouchedState> {
  const touched = new TouchedState(kv);
  await kv.write(touched.genesisOps([...genesis.alloc.map((a) => ({ address: a.address })), ...genesis.accounts]));
  app.addIndexer((c) => touched.blockOps(c));
  return touched;
}

/** --dump-state: the head state as Anvil's plain JSON, written whole or not at all (temp file, then rename). */
export async function writeDumpFile(path: string, dump: () => Promise<AnvilState>): Promise<void> {
  const json = JSON.stringify(await dump());
  await writeFile(`${path}.tmp`, json);
  await rename(`${path}.tmp`, path);
  console.log(`state dumped to ${path}`);
}
