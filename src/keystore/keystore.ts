// The node's key store: one v3 key file per account in <home>/keystore (geth's layout, so geth, ethers and web3.js
// files can be copied in and ours copied out), plus the unlocked keys of SPEC §3.1. One instance per node, made in
// main.ts. Files are found by scanning the directory (again whenever it changes), so a file copied in while the
// node runs shows up without a restart; a file that cannot be read is reported once and skipped.
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { KeyStoreError } from '../errors/index.ts';
import { privateKeyToAddress, randomPrivateKey } from '../keys/secp.ts';
import { Semaphore } from '../primitives/semaphore.ts';
import { KeyedMutex } from './keyedMutex.ts';
import { UnlockedKeys } from './unlocked.ts';
import { decryptKey, encryptKey, kdfMemory, keyFileAddress, scryptMemory, type ScryptParams } from './v3.ts';
import { bareHex } from '../primitives/hex.ts';

/** geth's accounts.ErrUnknownAccount: signing or sending from an address the store does not hold. */
export const ERR_UNKNOWN_ACCOUNT = 'unknown account';
/** geth's keystore.ErrNoMatch: unlocking an address the store does not hold. */
export const ERR_NO_MATCH = 'no key for given address or file';
/** geth's keystore.ErrLocked: signing without a passphrase from a locked account. */
export const ERR_LOCKED = 'authentication needed: password or unlock';
/** geth's keystore.ErrAccountAlreadyExists. */
export const ERR_EXISTS = 'account already exists';

// geth reloads its account cache at most this often when nothing tells it the directory changed.
const RESCAN_INTERVAL_MS = 2000;
// Derivations above this size (the standard cost needs 256 MiB) run at most HEAVY_KDF_SLOTS at a time.
const HEAVY_KDF_BYTES = 64 * 1024 * 1024;
const HEAVY_KDF_SLOTS = 2;

/** One key file found in the directory. */
export interface KeyFileEntry {
  address: Uint8Array;
  /** File name (UTC--<time>--<address>). */
  file: string;
  /** Absolute path. */
  path: string;
}

/** A key-store wallet as personal_listWallets shows it. */
export interface WalletInfo {
  url: string;
  address: Uint8Array;
  unlocked: boolean;
}

/** Options of a key store. */
export interface KeyStoreOptions {
  dir: string;
  /** Cost of files this store writes (reading uses each file's own parameters). */
  scrypt: ScryptParams;
  /** Where corrupt files and duplicates are reported (default: stderr). */
  log?: (msg: string) => void;
}

interface Cached {
  stamp: string;
  entry?: KeyFileEntry;
}

function idOf(addr: Uint8Array): string {
  return bareHex(addr);
}

// Go's "2006-01-02T15-04-05.999999999Z" as geth writes it in file names (nanoseconds, always 9 digits).
function fileTime(d: Date, subMsNanos: number): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const nanos = d.getUTCMilliseconds() * 1_000_000 + subMsNanos;
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}T${p(d.getUTCHours())}-${p(d.getUTCMinutes())}-${p(d.getUTCSeconds())}.${p(nanos, 9)}Z`;
}

/** geth's key file name for an address created at `d`. */
export function keyFileName(
  address: Uint8Array,
  d = new Date(),
  subMsNanos = Number(process.hrtime.bigint() % 1_000_000n),
): string {
  return `UTC--${fileTime(d, subMsNanos)}--${idOf(address)}`;
}

/** Writes `content` to `path` through a hidden temp file + fsync (when `durable`) + rename, with mode 0600. */
function writeKeyFileAtomic(dir: string, name: string, content: string, durable: boolean): string {
  const path = join(dir, name);
  const tmp = join(dir, `.${name}.tmp-${process.pid}`);
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, content);
    if (durable) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, path);
  } catch (e) {
    unlinkSync(tmp);
    throw e;
  }
  return path;
}

/** Names geth skips when scanning: hidden files, editor backups, README. */
function skipName(name: string): boolean {
  return name.startsWith('.') || name.endsWith('~') || name === 'README' || name.endsWith('.tmp');
}

/** The key store of one node. */
export class KeyStore {
  readonly dir: string;
  private readonly scrypt: ScryptParams;
  private readonly log: (msg: string) => void;
  private readonly unlocked = new UnlockedKeys();
  private readonly sends = new KeyedMutex();
  private readonly heavyKdf = new Semaphore(HEAVY_KDF_SLOTS);
  private readonly cache = new Map<string, Cached>();
  private entries = new Map<string, KeyFileEntry>();
  private order: KeyFileEntry[] = [];
  private leading: string[] = [];
  private dirStamp = '';
  private lastScan = -Infinity;
  private readonly reported = new Set<string>();

  constructor(opts: KeyStoreOptions) {
    this.dir = resolve(opts.dir);
    this.scrypt = opts.scrypt;
    this.log = opts.log ?? ((m) => console.error(m));
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.refresh(true);
  }

  /** Addresses of every key, in a stable order: the `leading` ones first, then by file name (creation time). */
  accounts(): Uint8Array[] {
    this.refresh();
    return this.order.map((e) => e.address);
  }

  /** The key files, in the order of accounts(). */
  files(): KeyFileEntry[] {
    this.refresh();
    return [...this.order];
  }

  /** Each key file as a wallet (geth's keystore:// URL), sorted by URL as geth sorts them. */
  wallets(): WalletInfo[] {
    this.refresh();
    return this.order
      .map((e) => ({ url: `keystore://${e.path}`, address: e.address, unlocked: this.unlocked.has(idOf(e.address)) }))
      .sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  }

  /** Whether the store holds a key for the address. */
  has(address: Uint8Array): boolean {
    this.refresh();
    return this.entries.has(idOf(address));
  }

  /** Whether the account is unlocked right now. */
  isUnlocked(address: Uint8Array): boolean {
    return this.unlocked.has(idOf(address));
  }

  /** Lists these addresses first (in this order) when present; `--dev` keeps the dev accounts at indexes 0-9. */
  setLeading(addresses: Uint8Array[]): void {
    this.leading = addresses.map(idOf);
    this.rebuildOrder();
  }

  /** Creates a random key encrypted with `passphrase`; the new account starts locked. */
  async newAccount(passphrase: string): Promise<Uint8Array> {
    const key = randomPrivateKey();
    try {
      return await this.storeKey(key, passphrase);
    } finally {
      key.fill(0);
    }
  }

  /** Stores a given private key (locked); an address already present is an error, as in geth. */
  async importKey(privateKey: Uint8Array, passphrase: string): Promise<Uint8Array> {
    if (this.has(privateKeyToAddress(privateKey))) throw new KeyStoreError(ERR_EXISTS);
    return this.storeKey(privateKey, passphrase);
  }

  /**
   * Encrypts and writes a key file (at this store's cost unless `params` is given); returns the address. `durable`
   * false skips the fsync, for keys that can be written again (the `--dev` ones, derived on every start).
   */
  async storeKey(
    privateKey: Uint8Array,
    passphrase: string,
    params: ScryptParams = this.scrypt,
    name?: string,
    durable = true,
  ): Promise<Uint8Array> {
    const json = await this.kdf(scryptMemory(params), () => encryptKey(privateKey, passphrase, params));
    const address = keyFileAddress(json);
    // Checked again after the (slow) encryption: a concurrent import of the same key must not write a second file.
    if (this.has(address)) throw new KeyStoreError(ERR_EXISTS);
    writeKeyFileAtomic(this.dir, name ?? keyFileName(address), JSON.stringify(json), durable);
    this.refresh(true);
    return address;
  }

  /** Decrypts the account's key (a fresh buffer the caller must wipe). `unknown` is the message for a missing key. */
  async decrypt(address: Uint8Array, passphrase: string, unknown = ERR_UNKNOWN_ACCOUNT): Promise<Uint8Array> {
    const entry = this.entry(address, unknown);
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(entry.path, 'utf8'));
    } catch (e) {
      throw new KeyStoreError(`cannot read key file ${entry.file}: ${(e as Error).message}`);
    }
    const key = await this.kdf(kdfMemory(json), () => decryptKey(json, passphrase));
    if (!Buffer.from(privateKeyToAddress(key)).equals(Buffer.from(address))) {
      key.fill(0);
      throw new KeyStoreError(ERR_UNKNOWN_ACCOUNT);
    }
    return key;
  }

  /** personal_unlockAccount: decrypts and holds the key for `durationMs` (undefined = until the process exits). */
  async unlock(address: Uint8Array, passphrase: string, durationMs: number | undefined): Promise<void> {
    const key = await this.decrypt(address, passphrase, ERR_NO_MATCH);
    this.unlocked.set(idOf(address), key, durationMs);
  }

  /**
   * Holds an already known key unlocked until exit (the `--dev` accounts, derived instead of decrypted). `address`
   * must be the key's: the caller derived both (or read them from the digest-checked cache of a derivation,
   * keystore/devCache.ts), so it is not recomputed here, which would load the secp256k1 library at every start.
   */
  holdUnlocked(address: Uint8Array, privateKey: Uint8Array): void {
    this.unlocked.set(idOf(address), new Uint8Array(privateKey), undefined);
  }

  /** personal_lockAccount: forgets the decrypted key at once. */
  lock(address: Uint8Array): void {
    this.unlocked.delete(idOf(address));
  }

  /** The key of an unlocked account; throws "unknown account" or "authentication needed: password or unlock". */
  unlockedKey(address: Uint8Array): Uint8Array {
    this.entry(address, ERR_UNKNOWN_ACCOUNT);
    const key = this.unlocked.get(idOf(address));
    if (!key) throw new KeyStoreError(ERR_LOCKED);
    return key;
  }

  /** Runs `fn` while holding the account's send lock, so concurrent sends take consecutive nonces (geth's nonceLock). */
  exclusive<T>(address: Uint8Array, fn: () => Promise<T>): Promise<T> {
    return this.sends.run(idOf(address), fn);
  }

  /** Locks every account (node shutdown). */
  close(): void {
    this.unlocked.clear();
  }

  private entry(address: Uint8Array, unknown: string): KeyFileEntry {
    this.refresh();
    const e = this.entries.get(idOf(address));
    if (!e) throw new KeyStoreError(unknown);
    return e;
  }

  private kdf<T>(memory: number, fn: () => Promise<T>): Promise<T> {
    return memory > HEAVY_KDF_BYTES ? this.heavyKdf.run(fn) : fn();
  }

  /** Rescans when the directory changed (or every 2 s, for changes within one mtime tick), or when forced. */
  private refresh(force = false): void {
    let stamp: string;
    try {
      const st = statSync(this.dir);
      stamp = `${st.mtimeMs}:${st.ctimeMs}`;
    } catch {
      stamp = 'missing';
    }
    const now = performance.now();
    if (!force && stamp === this.dirStamp && now - this.lastScan < RESCAN_INTERVAL_MS) return;
    this.dirStamp = stamp;
    this.lastScan = now;
    this.scan();
  }

  private scan(): void {
    let names: string[];
    try {
      names = readdirSync(this.dir)
        .filter((n) => !skipName(n))
        .sort();
    } catch {
      names = [];
    }
    const seen = new Set<string>();
    const entries = new Map<string, KeyFileEntry>();
    for (const name of names) {
      seen.add(name);
      const entry = this.readEntry(name);
      if (!entry) continue;
      const id = idOf(entry.address);
      const first = entries.get(id);
      if (first) {
        this.reportOnce(name, `keystore: ${name} holds the same account as ${first.file}; using ${first.file}`);
        continue;
      }
      entries.set(id, entry);
    }
    for (const name of [...this.cache.keys()]) if (!seen.has(name)) this.cache.delete(name);
    this.entries = entries;
    this.rebuildOrder();
  }

  private readEntry(name: string): KeyFileEntry | undefined {
    const path = join(this.dir, name);
    let stamp: string;
    try {
      const st = statSync(path);
      if (!st.isFile()) return undefined;
      stamp = `${st.mtimeMs}:${st.size}`;
    } catch {
      return undefined;
    }
    const cached = this.cache.get(name);
    if (cached && cached.stamp === stamp) return cached.entry;
    let entry: KeyFileEntry | undefined;
    try {
      const address = keyFileAddress(JSON.parse(readFileSync(path, 'utf8')));
      entry = { address, file: name, path };
    } catch (e) {
      this.log(`keystore: skipping ${path}: ${(e as Error).message}`);
    }
    this.cache.set(name, { stamp, entry });
    return entry;
  }

  private reportOnce(key: string, msg: string): void {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.log(msg);
  }

  private rebuildOrder(): void {
    const lead = this.leading.map((id) => this.entries.get(id)).filter((e): e is KeyFileEntry => e !== undefined);
    const leadSet = new Set(lead);
    this.order = [
      ...lead,
      ...[...this.entries.values()].filter((e) => !leadSet.has(e)).sort((a, b) => (a.file < b.file ? -1 : 1)),
    ];
  }
}
