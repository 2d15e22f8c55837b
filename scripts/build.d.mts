// Types of scripts/build.mjs for the TypeScript tests that import it.
/** Whether `dist` is older than a source of `src` (or the file list changed). */
export function isStale(src?: string, dist?: string): boolean;
/** Why `dist` is not a build of `src` as it is now, or undefined when it is (bin/build-state.js). */
export function staleReason(src?: string, dist?: string): string | undefined;
/** staleReason by the same rule, its directory reads and stats on the thread pool (the launcher's check). */
export function staleReasonAsync(src?: string, dist?: string): Promise<string | undefined>;
/** Compiles every source of `src` into `dist`; returns the number of modules. */
export function build(src?: string, dist?: string): Promise<number>;
/** Builds the repository's dist/ when stale; true if it did. */
export function ensureBuilt(): Promise<boolean>;
