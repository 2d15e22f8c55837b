// The secp256k1 library (the native add-on, or the package's own JavaScript fallback where it cannot load), loaded
// on first use instead of with the node's modules: finding and loading the add-on is 15-25 ms of CPU that a start
// does not need before it answers (the dev accounts' keys come from their cache in the home, keystore/devCache.ts).
import { createRequire } from 'node:module';
import type Secp256k1 from 'secp256k1';

let lib: typeof Secp256k1 | undefined;

/** The secp256k1 package, loaded on the first call. */
export function secp256k1(): typeof Secp256k1 {
  return (lib ??= createRequire(import.meta.url)('secp256k1') as typeof Secp256k1);
}
