// Web3 Secret Storage v3 key files (the format geth, ethers and web3.js share): a KDF (scrypt, or pbkdf2 when
// reading) derives 32 bytes from the passphrase; the first 16 key aes-128-ctr over the private key, the last 16
// go into the MAC keccak256(dk[16:32] ‖ ciphertext). This module is pure: no file system, no unlock state.
import {
  createCipheriv,
  createDecipheriv,
  pbkdf2,
  randomBytes,
  randomUUID,
  scrypt,
  timingSafeEqual,
} from 'node:crypto';
import { scryptAsync as nobleScrypt } from '@noble/hashes/scrypt.js';
import { secp256k1 } from '../primitives/secp256k1.ts';
import { KeyStoreError } from '../errors/index.ts';
import { privateKeyToAddress } from '../keys/secp.ts';
import { keccak256 } from '../primitives/hash.ts';
import { bareHex } from '../primitives/hex.ts';

/** scrypt cost parameters of new key files. */
export interface ScryptParams {
  n: number;
  r: number;
  p: number;
}

/** geth's standard cost (n=2^18, r=8, p=1): about 0.5-1 s and 256 MiB per derivation. */
export const STANDARD_SCRYPT: ScryptParams = { n: 262144, r: 8, p: 1 };

/** geth's light cost (--lightkdf: n=2^12, r=8, p=6): tens of milliseconds; what `--dev` uses. */
export const LIGHT_SCRYPT: ScryptParams = { n: 4096, r: 8, p: 6 };

/** The decrypt failure geth reports for a wrong passphrase (also for a corrupted ciphertext). */
export const ERR_DECRYPT = 'could not decrypt key with given password';

// A derivation needs 128·n·r bytes; refuse files that would ask for more than this (a hostile file could OOM us).
const MAX_KDF_MEMORY = 1024 * 1024 * 1024;

/** The JSON of a v3 key file as Kestrel writes it (geth's field names and order). */
export interface KeyFileJson {
  address: string;
  crypto: {
    cipher: 'aes-128-ctr';
    ciphertext: string;
    cipherparams: { iv: string };
    kdf: 'scrypt';
    kdfparams: { dklen: number; n: number; p: number; r: number; salt: string };
    mac: string;
  };
  id: string;
  version: 3;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function hexField(o: Obj, key: string, what: string): Buffer {
  const v = o[key];
  if (typeof v !== 'string' || !/^(0x)?([0-9a-fA-F]{2})*$/.test(v))
    throw new KeyStoreError(`invalid key file: ${what} is not hex`);
  return Buffer.from(v.replace(/^0x/, ''), 'hex');
}

function intField(o: Obj, key: string, what: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0) {
    throw new KeyStoreError(`invalid key file: ${what} must be a positive integer`);
  }
  return v;
}

/** Memory one scrypt derivation needs (bytes). */
export function scryptMemory(p: ScryptParams): number {
  return 128 * p.n * p.r + 128 * p.r * p.p;
}

/** Checks scrypt parameters for new files (power-of-two n, sane bounds). */
export function validateScryptParams(p: ScryptParams): void {
  if (!Number.isSafeInteger(p.n) || p.n < 2 || (p.n & (p.n - 1)) !== 0)
    throw new Error(`scrypt n must be a power of two ≥ 2 (got ${p.n})`);
  if (!Number.isSafeInteger(p.r) || p.r < 1 || p.r > 32) throw new Error(`scrypt r must be in 1..32 (got ${p.r})`);
  if (!Number.isSafeInteger(p.p) || p.p < 1 || p.p > 64) throw new Error(`scrypt p must be in 1..64 (got ${p.p})`);
  if (scryptMemory(p) > MAX_KDF_MEMORY) throw new Error(`scrypt n=${p.n} r=${p.r} needs more than 1 GiB`);
}

/**
 * scrypt on OpenSSL (in libuv's thread pool, so the event loop keeps serving). OpenSSL enforces RFC 7914's
 * n < 2^(16·r), which rejects valid r=1 files such as the spec's own test vector; those fall back to @noble/hashes.
 */
async function deriveScrypt(pass: Uint8Array, salt: Uint8Array, p: ScryptParams, dkLen: number): Promise<Uint8Array> {
  const maxmem = scryptMemory(p) + 16 * 1024 * 1024;
  try {
    return await new Promise<Uint8Array>((res, rej) => {
      scrypt(pass, salt, dkLen, { N: p.n, r: p.r, p: p.p, maxmem }, (err, key) =>
        err ? rej(err) : res(new Uint8Array(key)),
      );
    });
  } catch (e) {
    if ((e as { code?: string }).code !== 'ERR_CRYPTO_INVALID_SCRYPT_PARAMS') throw e;
    return nobleScrypt(pass, salt, { N: p.n, r: p.r, p: p.p, dkLen, maxmem, asyncTick: 20 });
  }
}

function derivePbkdf2(pass: Uint8Array, salt: Uint8Array, c: number, dkLen: number): Promise<Uint8Array> {
  return new Promise((res, rej) => {
    pbkdf2(pass, salt, c, dkLen, 'sha256', (err, key) => (err ? rej(err) : res(new Uint8Array(key))));
  });
}

function mac(derived: Uint8Array, ciphertext: Uint8Array): Uint8Array {
  const buf = new Uint8Array(16 + ciphertext.length);
  buf.set(derived.subarray(16, 32), 0);
  buf.set(ciphertext, 16);
  return keccak256(buf);
}

function aes128ctr(key: Uint8Array, iv: Uint8Array, data: Uint8Array, decrypt: boolean): Uint8Array {
  const c = decrypt ? createDecipheriv('aes-128-ctr', key, iv) : createCipheriv('aes-128-ctr', key, iv);
  return new Uint8Array(Buffer.concat([c.update(data), c.final()]));
}

/** Encrypts a private key into a v3 key file with scrypt at the given cost. */
export async function encryptKey(
  privateKey: Uint8Array,
  passphrase: string,
  params: ScryptParams,
  fixed: { salt?: Uint8Array; iv?: Uint8Array; id?: string } = {},
): Promise<KeyFileJson> {
  if (privateKey.length !== 32 || !secp256k1().privateKeyVerify(privateKey))
    throw new KeyStoreError('invalid private key');
  const salt = fixed.salt ?? randomBytes(32);
  const iv = fixed.iv ?? randomBytes(16);
  const derived = await deriveScrypt(Buffer.from(passphrase, 'utf8'), salt, params, 32);
  const ciphertext = aes128ctr(derived.subarray(0, 16), iv, privateKey, false);
  const out: KeyFileJson = {
    address: bareHex(privateKeyToAddress(privateKey)),
    crypto: {
      cipher: 'aes-128-ctr',
      ciphertext: bareHex(ciphertext),
      cipherparams: { iv: bareHex(iv) },
      kdf: 'scrypt',
      kdfparams: { dklen: 32, n: params.n, p: params.p, r: params.r, salt: bareHex(salt) },
      mac: bareHex(mac(derived, ciphertext)),
    },
    id: fixed.id ?? randomUUID(),
    version: 3,
  };
  derived.fill(0);
  return out;
}

/** The `crypto` object of a key file; ethers writes `Crypto`, and geth's JSON decoding is case-insensitive too. */
function cryptoSection(json: Obj): Obj {
  const key = Object.keys(json).find((k) => k.toLowerCase() === 'crypto');
  const c = key === undefined ? undefined : json[key];
  if (!isObj(c)) throw new KeyStoreError('invalid key file: no crypto section');
  return c;
}

function checkEnvelope(json: unknown): Obj {
  if (!isObj(json)) throw new KeyStoreError('invalid key file: not a JSON object');
  if (json['version'] !== 3) throw new KeyStoreError(`version not supported: ${String(json['version'])}`);
  return cryptoSection(json);
}

function claimedAddress(json: Obj): Uint8Array | undefined {
  const a = json['address'];
  if (typeof a !== 'string' || !/^(0x)?[0-9a-fA-F]{40}$/.test(a)) return undefined;
  return new Uint8Array(Buffer.from(a.replace(/^0x/, ''), 'hex'));
}

/**
 * The address a key file claims (its `address` field), without decrypting; throws on a malformed file. A key
 * store indexes files by this field, so, as in geth, a file without it cannot be used from the key store.
 */
export function keyFileAddress(json: unknown): Uint8Array {
  checkEnvelope(json);
  const a = claimedAddress(json as Obj);
  if (!a) throw new KeyStoreError('invalid key file: no address');
  return a;
}

/** The memory the file's KDF would need, or 0 for pbkdf2 (used to bound concurrent derivations). */
export function kdfMemory(json: unknown): number {
  if (!isObj(json)) return 0;
  const c = cryptoSection(json);
  const kp = c['kdfparams'];
  if (c['kdf'] !== 'scrypt' || !isObj(kp)) return 0;
  const n = Number(kp['n']);
  const r = Number(kp['r']);
  const p = Number(kp['p']);
  return Number.isFinite(n * r * p) ? scryptMemory({ n, r, p }) : 0;
}

/** Decrypts a v3 key file; a wrong passphrase throws ERR_DECRYPT. The result is a fresh buffer the caller owns. */
export async function decryptKey(json: unknown, passphrase: string): Promise<Uint8Array> {
  const c = checkEnvelope(json);
  const claimed = claimedAddress(json as Obj);
  if (c['cipher'] !== 'aes-128-ctr') throw new KeyStoreError(`cipher not supported: ${String(c['cipher'])}`);
  const cipherparams = c['cipherparams'];
  const kp = c['kdfparams'];
  if (!isObj(cipherparams) || !isObj(kp))
    throw new KeyStoreError('invalid key file: missing cipherparams or kdfparams');
  const iv = hexField(cipherparams, 'iv', 'cipherparams.iv');
  const ciphertext = hexField(c, 'ciphertext', 'ciphertext');
  const wantMac = hexField(c, 'mac', 'mac');
  const salt = hexField(kp, 'salt', 'kdfparams.salt');
  const dkLen = intField(kp, 'dklen', 'kdfparams.dklen');
  if (iv.length !== 16 || dkLen < 32 || wantMac.length !== 32)
    throw new KeyStoreError('invalid key file: bad iv, dklen or mac length');
  const pass = Buffer.from(passphrase, 'utf8');
  let derived: Uint8Array;
  if (c['kdf'] === 'scrypt') {
    const params = {
      n: intField(kp, 'n', 'kdfparams.n'),
      r: intField(kp, 'r', 'kdfparams.r'),
      p: intField(kp, 'p', 'kdfparams.p'),
    };
    if ((params.n & (params.n - 1)) !== 0 || scryptMemory(params) > MAX_KDF_MEMORY) {
      throw new KeyStoreError('invalid key file: unsupported scrypt parameters');
    }
    derived = await deriveScrypt(pass, salt, params, dkLen);
  } else if (c['kdf'] === 'pbkdf2') {
    if (kp['prf'] !== 'hmac-sha256') throw new KeyStoreError(`unsupported PBKDF2 PRF: ${String(kp['prf'])}`);
    derived = await derivePbkdf2(pass, salt, intField(kp, 'c', 'kdfparams.c'), dkLen);
  } else {
    throw new KeyStoreError(`unsupported KDF: ${String(c['kdf'])}`);
  }
  const ok = timingSafeEqual(mac(derived, ciphertext), wantMac);
  const key = ok ? aes128ctr(derived.subarray(0, 16), iv, ciphertext, true) : undefined;
  derived.fill(0);
  if (!key) throw new KeyStoreError(ERR_DECRYPT);
  if (key.length !== 32 || !secp256k1().privateKeyVerify(key))
    throw new KeyStoreError('invalid key file: not a secp256k1 private key');
  const actual = privateKeyToAddress(key);
  if (claimed && !Buffer.from(actual).equals(Buffer.from(claimed))) {
    key.fill(0);
    throw new KeyStoreError(`key content mismatch: have account ${bareHex(actual)}, want ${bareHex(claimed)}`);
  }
  return key;
}
