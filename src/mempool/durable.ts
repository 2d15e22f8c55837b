// Wires the journal to a pool at start: replay the file through normal admission, rewrite it from what survived
// (compaction; an empty journal stays as it is), then journal every newly accepted tx.
import { TxJournal, readJournal, type JournalEntry } from './journal.ts';
import type { TxPool } from './pool.ts';
import type { TxSubmitter } from './submit.ts';
import { encodeTx } from '../primitives/tx/encode.ts';

/**
 * The pool's content as journal records, each sender in nonce order (so a replay re-admits them in order); a tx's
 * encoding is the one its decoder kept (the same bytes tx.serialize() would make again).
 */
export function poolSnapshot(pool: TxPool): JournalEntry[] {
  const out: JournalEntry[] = [];
  for (const s of pool.content()) {
    for (const t of [...s.pending, ...s.queued]) out.push({ raw: t.encoded ?? encodeTx(t.tx), addedAt: t.addedAt });
  }
  return out;
}

/** What opening the journal found and did. */
export interface JournalOpened {
  journal: TxJournal;
  restored: number;
  settled: number;
  dropped: number;
  tornBytes: number;
}

/** Replays `path` into the pool through `submitter`, compacts it and attaches it to the submitter. */
export async function openPoolJournal(
  path: string,
  pool: TxPool,
  submitter: TxSubmitter,
  fsync: boolean,
): Promise<JournalOpened> {
  const read = readJournal(path);
  const { restored, settled, dropped } = await submitter.restore(read.entries);
  const opts = { fsync, snapshot: () => poolSnapshot(pool), liveCount: () => pool.size };
  const entries = poolSnapshot(pool);
  // The usual start (no tx was waiting): the file is already what compaction would write.
  const journal =
    read.empty && entries.length === 0 ? TxJournal.openEmpty(path, opts) : await TxJournal.create(path, entries, opts);
  submitter.useJournal(journal);
  return { journal, restored, settled, dropped, tornBytes: read.tornBytes };
}
