// A recovery worker: recovers the public keys of a batch of signatures with the same native call the node makes on
// its main thread (secp256k1.ecdsaRecover), so where a key is recovered never changes the result.
import { parentPort } from 'node:worker_threads';
import { secp256k1 } from '../../primitives/secp256k1.ts';
import { JOB_BYTES, RESULT_BYTES, type BatchReply, type BatchRequest } from './wire.ts';

const port = parentPort!;
port.on('message', (req: BatchRequest) => {
  const jobs = new Uint8Array(req.jobs);
  const n = jobs.length / JOB_BYTES;
  const out = new Uint8Array(n * RESULT_BYTES);
  for (let i = 0; i < n; i++) {
    const at = i * JOB_BYTES;
    try {
      const pub = secp256k1().ecdsaRecover(
        jobs.subarray(at + 32, at + 96),
        jobs[at + 96]!,
        jobs.subarray(at, at + 32),
        false,
      );
      out[i * RESULT_BYTES] = 1;
      out.set(pub.subarray(1), i * RESULT_BYTES + 1);
    } catch {
      // An unrecoverable signature: the ok flag stays 0 and the node refuses the tx with "invalid sender".
    }
  }
  const reply: BatchReply = { id: req.id, results: out.buffer };
  port.postMessage(reply, [out.buffer]);
});
