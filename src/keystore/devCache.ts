// The `--dev` accounts as a start derived them, kept in the home (data/dev-accounts.json): the next start reads
// them instead of deriving them again (PBKDF2, eleven BIP-32 steps and loading the secp256k1 add-on, 20-40 ms of
// CPU before the node answered). The file names the mnemonic and path it holds and a digest of its contents; one
// that is missing, unreadable, for another mnemonic, path or count, or whose digest does not match, is derived
// again and rewritten.
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { deriveAccounts, type DevAccount } from '../keys/devAccounts.ts';

const FORMAT = 1;
/** The HD path the accounts are derived on (keys/devAccounts.ts); index i is the i-th account. */
const PATH = "m/44'/60'/0'/0";

/** The file without its digest; the digest covers its JSON text, keys in this order. */
interface CacheBody {
  format: number;
  /** SHA-256 of the NFKD mnemonic: the file names its source without holding it. */
  mnemonic: string;
  path: string;
  accounts: { address: string; privateKey: string }[];
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function bodyOf(mnemonic: string, accounts: DevAccount[]): CacheBody {
  return {
    format: FORMAT,
    mnemonic: sha256Hex(mnemonic.normalize('NFKD')),
    path: PATH,
    accounts: accounts.map((a) => ({
      address: Buffer.from(a.address).toString('hex'),
      privateKey: Buffer.from(a.privateKey).toString('hex'),
    })),
  };
}

/** The `count` accounts of `mnemonic` held in `file`, or undefined when it holds no valid copy of them. */
export function readDevAccountsCache(file: string, mnemonic: string, count: number): DevAccount[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const f = parsed as Partial<CacheBody> & { digest?: unknown };
  if (f.format !== FORMAT || f.path !== PATH || f.mnemonic !== sha256Hex(mnemonic.normalize('NFKD'))) return undefined;
  if (!Array.isArray(f.accounts) || f.accounts.length !== count) return undefined;
  const accounts: CacheBody['accounts'] = [];
  for (const a of f.accounts as unknown[]) {
    const { address, privateKey } = (a ?? {}) as Record<string, unknown>;
    if (typeof address !== 'string' || !/^[0-9a-f]{40}$/.test(address)) return undefined;
    if (typeof privateKey !== 'string' || !/^[0-9a-f]{64}$/.test(privateKey)) return undefined;
    accounts.push({ address, privateKey });
  }
  const body: CacheBody = { format: f.format, mnemonic: f.mnemonic, path: f.path, accounts };
  if (f.digest !== sha256Hex(JSON.stringify(body))) return undefined;
  return accounts.map((a) => ({
    address: new Uint8Array(Buffer.from(a.address, 'hex')),
    privateKey: new Uint8Array(Buffer.from(a.privateKey, 'hex')),
  }));
}

/**
 * Writes `accounts` (those of `mnemonic`) to `file` through a temporary file, owner-only. A failure (a read-only
 * home) is ignored: the next start derives them again.
 */
export function writeDevAccountsCache(file: string, mnemonic: string, accounts: DevAccount[]): void {
  const body = bodyOf(mnemonic, accounts);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, JSON.stringify({ ...body, digest: sha256Hex(JSON.stringify(body)) }) + '\n', { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    rmSync(tmp, { force: true });
  }
}

/** The first `count` accounts of `mnemonic`: from the cache `file` when it holds them, else derived and cached. */
export function cachedDevAccounts(file: string, mnemonic: string, count: number): DevAccount[] {
  const cached = readDevAccountsCache(file, mnemonic, count);
  if (cached !== undefined) return cached;
  const accounts = deriveAccounts(mnemonic, count);
  writeDevAccountsCache(file, mnemonic, accounts);
  return accounts;
}
