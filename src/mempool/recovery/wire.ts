// The byte layout of a recovery batch between the node and a recovery worker: one transferred buffer each way, so
// a batch costs one message and no structured-clone walk, whatever its size.
import type { RecoveryJob } from '../../app/evm/validate.ts';

/** One job in a request: msgHash (32) ‖ r ‖ s (64) ‖ recovery id (1). */
export const JOB_BYTES = 97;
/** One result in a reply: ok flag (1) ‖ uncompressed public key without its 0x04 prefix (64). */
export const RESULT_BYTES = 65;

/** A batch sent to a worker; `jobs` holds JOB_BYTES per job. */
export interface BatchRequest {
  id: number;
  jobs: ArrayBuffer;
}

/** A worker's answer to batch `id`; `results` holds RESULT_BYTES per job, in the request's order. */
export interface BatchReply {
  id: number;
  results: ArrayBuffer;
}

/** Packs `jobs` into one request buffer. */
export function packJobs(jobs: readonly RecoveryJob[]): ArrayBuffer {
  const out = new Uint8Array(jobs.length * JOB_BYTES);
  for (let i = 0; i < jobs.length; i++) {
    const j = jobs[i]!;
    const at = i * JOB_BYTES;
    out.set(j.msgHash, at);
    out.set(j.sig, at + 32);
    out[at + 96] = j.recid;
  }
  return out.buffer;
}
