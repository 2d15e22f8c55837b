import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { deriveAccounts, DEV_MNEMONIC } from '../keys/devAccounts.ts';
import { privateKeyToAddress } from '../keys/secp.ts';
import { installDevKeys } from './dev.ts';
import { ERR_EXISTS, ERR_LOCKED, ERR_NO_MATCH, ERR_UNKNOWN_ACCOUNT, KeyStore, keyFileName } from './keystore.ts';
import { ERR_DECRYPT, encryptKey } from './v3.ts';

const FAST = { n: 1024, r: 8, p: 1 };
const KEY = Uint8Array.from(Buffer.from('59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d', 'hex'));
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('KeyStore', { timeout: 60_000 }, () => {
  const base = mkdtempSync(join(tmpdir(), 'kestrel-ks-'));
  after(() => rmSync(base, { recursive: true, force: true }));
  let n = 0;
  const fresh = (log?: (m: string) => void) =>
    new KeyStore({ dir: join(base, `ks${n++}`), scrypt: FAST, log: log ?? (() => {}) });

  it('newAccount writes one 0600 UTC--<time>--<address> file; the account starts locked', async () => {
    const ks = fresh();
    const addr = await ks.newAccount('pw');
    const files = readdirSync(ks.dir);
    assert.equal(files.length, 1);
    assert.match(files[0]!, new RegExp(`^UTC--\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}\\.\\d{9}Z--${hex(addr)}$`));
    assert.equal(statSync(join(ks.dir, files[0]!)).mode & 0o777, 0o600);
    assert.equal(statSync(ks.dir).mode & 0o777, 0o700);
    assert.deepEqual(ks.accounts().map(hex), [hex(addr)]);
    assert.equal(ks.isUnlocked(addr), false);
    assert.throws(() => ks.unlockedKey(addr), { message: ERR_LOCKED });
  });

  it('imports a raw key once; the second import is "account already exists", also when concurrent', async () => {
    const ks = fresh();
    const addr = await ks.importKey(KEY, 'pw');
    assert.equal(hex(addr), hex(privateKeyToAddress(KEY)));
    await assert.rejects(ks.importKey(KEY, 'other'), { message: ERR_EXISTS });
    const ks2 = fresh();
    const results = await Promise.allSettled([ks2.importKey(KEY, 'a'), ks2.importKey(KEY, 'b')]);
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    assert.equal(readdirSync(ks2.dir).length, 1);
  });

  it('unlock with the right passphrase, lock forgets the key at once (the buffer is wiped)', async () => {
    const ks = fresh();
    const addr = await ks.importKey(KEY, 'pw');
    await assert.rejects(ks.unlock(addr, 'bad', undefined), { message: ERR_DECRYPT });
    await assert.rejects(ks.unlock(new Uint8Array(20), 'pw', undefined), { message: ERR_NO_MATCH });
    await ks.unlock(addr, 'pw', undefined);
    const key = ks.unlockedKey(addr);
    assert.equal(hex(key), hex(KEY));
    ks.lock(addr);
    assert.equal(ks.isUnlocked(addr), false);
    assert.equal(hex(key), '00'.repeat(32));
    assert.throws(() => ks.unlockedKey(addr), { message: ERR_LOCKED });
    assert.throws(() => ks.unlockedKey(new Uint8Array(20)), { message: ERR_UNKNOWN_ACCOUNT });
  });

  it('a timed unlock expires; a timed unlock does not shorten an unlock until exit (geth)', async () => {
    const ks = fresh();
    const addr = await ks.importKey(KEY, 'pw');
    await ks.unlock(addr, 'pw', 150);
    assert.equal(ks.isUnlocked(addr), true);
    await sleep(600);
    assert.equal(ks.isUnlocked(addr), false);
    await ks.unlock(addr, 'pw', undefined);
    await ks.unlock(addr, 'pw', 100);
    await sleep(400);
    assert.equal(ks.isUnlocked(addr), true);
    ks.close();
    assert.equal(ks.isUnlocked(addr), false);
  });

  it('decrypt for one call leaves the account locked', async () => {
    const ks = fresh();
    const addr = await ks.importKey(KEY, 'pw');
    assert.equal(hex(await ks.decrypt(addr, 'pw')), hex(KEY));
    assert.equal(ks.isUnlocked(addr), false);
    await assert.rejects(ks.decrypt(new Uint8Array(20), 'pw'), { message: ERR_UNKNOWN_ACCOUNT });
  });

  it('reports a corrupt file once and skips it; sees files copied in while running', async () => {
    const logs: string[] = [];
    const ks = fresh((m) => logs.push(m));
    const good = await ks.newAccount('pw');
    writeFileSync(join(ks.dir, 'UTC--2020-01-01T00-00-00.000000000Z--' + '11'.repeat(20)), '{ not json');
    writeFileSync(join(ks.dir, '.hidden'), 'x');
    writeFileSync(join(ks.dir, 'README'), 'x');
    const other = await encryptKey(KEY, 'pw', FAST);
    const src = join(base, 'outside.json');
    writeFileSync(src, JSON.stringify(other));
    copyFileSync(src, join(ks.dir, keyFileName(privateKeyToAddress(KEY))));
    const accounts = ks.accounts().map(hex);
    assert.deepEqual(accounts.sort(), [hex(good), hex(privateKeyToAddress(KEY))].sort());
    ks.accounts();
    assert.equal(logs.length, 1, logs.join('\n'));
    assert.match(logs[0]!, /keystore: skipping .*UTC--2020-01-01.*: Unexpected token|JSON/);
    await ks.unlock(privateKeyToAddress(KEY), 'pw', undefined);
  });

  it('lists accounts by file name, the leading ones first; wallets carry keystore:// URLs', async () => {
    const ks = fresh();
    const a = await ks.storeKey(
      KEY,
      'pw',
      FAST,
      keyFileName(privateKeyToAddress(KEY), new Date('2030-01-01T00:00:00Z'), 0),
    );
    const b = await ks.newAccount('pw');
    assert.deepEqual(ks.accounts().map(hex), [hex(b), hex(a)]);
    ks.setLeading([a]);
    assert.deepEqual(ks.accounts().map(hex), [hex(a), hex(b)]);
    const w = ks.wallets();
    assert.equal(w.length, 2);
    assert.ok(w.every((x) => x.url.startsWith(`keystore://${ks.dir}/UTC--`)));
    assert.ok(w[0]!.url < w[1]!.url);
  });

  it('--dev: derives the Hardhat accounts, writes their files once, holds them unlocked, lists them first', async () => {
    const keys = deriveAccounts(DEV_MNEMONIC, 10);
    assert.equal(hex(keys[0]!.address), 'f39fd6e51aad88f6f4ce6ab8827279cfffb92266');
    const ks = fresh();
    await ks.newAccount('pw');
    await installDevKeys(ks, keys);
    assert.deepEqual(
      ks.accounts().slice(0, 10).map(hex),
      keys.map((k) => hex(k.address)),
    );
    assert.equal(ks.accounts().length, 11);
    assert.ok(keys.every((k) => ks.isUnlocked(k.address)));
    const file = readdirSync(ks.dir).find((f) => f.endsWith(hex(keys[3]!.address)))!;
    const json = JSON.parse(readFileSync(join(ks.dir, file), 'utf8'));
    assert.deepEqual(
      [json.crypto.kdfparams.n, json.crypto.kdfparams.r, json.crypto.kdfparams.p],
      [2, 8, 1],
      'empty-passphrase dev files use the least scrypt cost (DEV_KEY_SCRYPT)',
    );
    assert.equal(hex(await ks.decrypt(keys[3]!.address, '')), hex(keys[3]!.privateKey));
    // A second start writes nothing new.
    const again = new KeyStore({ dir: ks.dir, scrypt: FAST, log: () => {} });
    await installDevKeys(again, keys);
    assert.equal(readdirSync(ks.dir).length, 11);
  });

  it('exclusive() runs one section at a time per account', async () => {
    const ks = fresh();
    const a = new Uint8Array(20).fill(1);
    const order: string[] = [];
    const section = (name: string, ms: number) =>
      ks.exclusive(a, async () => {
        order.push(`${name}+`);
        await sleep(ms);
        order.push(`${name}-`);
      });
    await Promise.all([
      section('x', 30),
      section('y', 1),
      ks.exclusive(new Uint8Array(20).fill(2), async () => {
        order.push('other');
      }),
    ]);
    assert.deepEqual(order, ['x+', 'other', 'x-', 'y+', 'y-']);
  });
});
