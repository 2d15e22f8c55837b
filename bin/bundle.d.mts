// Types of bin/bundle.mjs for the TypeScript tests that drive it.

/** Where the bundle's inputs besides the entry come from. */
export interface BundleOptions {
  tsconfigPath: string;
  lockfilePath?: string;
  cacheDir?: string;
}

/** The directory both the hooks' and the bundle's caches live in. */
export function defaultCacheDir(): string;

/** Imports `entry` from its cached bundle (rebuilt when a source changed); undefined when it cannot be built. */
export function importBundled(entry: string, options: BundleOptions): Promise<Record<string, unknown> | undefined>;

/** An Error.prepareStackTrace showing frames of the bundles in `cacheDir` at their .ts source lines. */
export function bundleStackFormatter(cacheDir?: string): (error: Error, sites: NodeJS.CallSite[]) => string;
