// mcl-wasm instances. mcl keeps its curve in module-level state: `init(curve)` is global to one loaded copy of
// the package, and switching curves invalidates every point of the other (REFERENCE-ENGINE.md §4, "one curve
// per process"). That state lives in the CommonJS module objects, so each curve gets its own copy of the
// package: the package's entries are dropped from the require cache before loading it again, which gives a
// second module graph with its own WebAssembly instance and memory. Points never cross instances: each
// backend file holds the instance it was created with.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

/** One loaded copy of mcl-wasm. */
export type Mcl = typeof import('mcl-wasm');

/** The curves the precompiles use. */
export type MclCurve = 'BN_SNARK1' | 'BLS12_381';

/** A fresh, initialised copy of mcl-wasm serving `curve` only. Throws when the package cannot load. */
export async function loadMcl(curve: MclCurve): Promise<Mcl> {
  const require = createRequire(import.meta.url);
  const entry = require.resolve('mcl-wasm');
  const packageDir = dirname(entry);
  const forget = () => {
    for (const key of Object.keys(require.cache)) {
      if (key.startsWith(packageDir)) delete require.cache[key];
    }
  };
  forget();
  const mcl = require(entry) as Mcl;
  // Dropped again at once: another require('mcl-wasm') in the process (and its init) gets a copy of its own
  // and can never switch the curve under this one.
  forget();
  await mcl.init(curve === 'BN_SNARK1' ? mcl.BN_SNARK1 : mcl.BLS12_381);
  return mcl;
}
