// Where the repository and the peers' executables are.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The Anvil binary from the @foundry-rs/anvil-linux-amd64 devDependency. */
export const ANVIL_BIN = join(REPO_ROOT, 'node_modules', '@foundry-rs', 'anvil-linux-amd64', 'bin', 'anvil');
/** Hardhat 2's CLI entry (not bootstrap.js, which may re-spawn and hide the serving PID). */
export const HARDHAT_CLI = join(REPO_ROOT, 'node_modules', 'hardhat', 'internal', 'cli', 'cli.js');
/** Ganache's CLI entry. */
export const GANACHE_CLI = join(REPO_ROOT, 'node_modules', 'ganache', 'dist', 'node', 'cli.js');
