// Module hooks for bench/blockFloor.ts: every import of src/primitives/keccak.ts but the shim's own resolves to
// the counting shim (bench/lib/keccakCounting.ts), so the app's hashes are recorded without a change to src.
const REAL = '/src/primitives/keccak.ts';
const SHIM = new URL('./keccakCounting.ts', import.meta.url).href;

/** Redirects the app's keccak module to the shim; the shim's own import of it gets the real one. */
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (r.url.endsWith(REAL) && !(context.parentURL ?? '').startsWith(SHIM)) return { ...r, url: SHIM };
  return r;
}
