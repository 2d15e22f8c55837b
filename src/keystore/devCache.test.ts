import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { deriveAccounts, DEV_MNEMONIC } from '../keys/devAccounts.ts';
import { cachedDevAccounts, readDevAccountsCache, writeDevAccountsCache } from './devCache.ts';

const dir = mkdtempSync(join(tmpdir(), 'kestrel-devcache-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('dev accounts cache', () => {
  const derived = deriveAccounts(DEV_MNEMONIC, 10);

  test('a missing cache is derived and written owner-only; the next read returns the same accounts', () => {
    const file = join(dir, 'a.json');
    assert.equal(readDevAccountsCache(file, DEV_MNEMONIC, 10), undefined);
    assert.deepEqual(cachedDevAccounts(file, DEV_MNEMONIC, 10), derived);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(readDevAccountsCache(file, DEV_MNEMONIC, 10), derived);
    assert.deepEqual(cachedDevAccounts(file, DEV_MNEMONIC, 10), derived);
  });

  test('another mnemonic or count is not read from it', () => {
    const file = join(dir, 'b.json');
    writeDevAccountsCache(file, DEV_MNEMONIC, derived);
    assert.equal(readDevAccountsCache(file, 'abandon '.repeat(11) + 'about', 10), undefined);
    assert.equal(readDevAccountsCache(file, DEV_MNEMONIC, 3), undefined);
    assert.deepEqual(cachedDevAccounts(file, DEV_MNEMONIC, 3), deriveAccounts(DEV_MNEMONIC, 3));
    assert.deepEqual(readDevAccountsCache(file, DEV_MNEMONIC, 3), deriveAccounts(DEV_MNEMONIC, 3));
  });

  test('a changed key, a bad digest or a corrupt file is ignored and rewritten from a derivation', () => {
    const file = join(dir, 'c.json');
    writeDevAccountsCache(file, DEV_MNEMONIC, derived);
    const good = readFileSync(file, 'utf8');
    const text = JSON.parse(good) as { accounts: { privateKey: string }[]; digest: string };
    const other = derived[1]!.privateKey;
    text.accounts[0]!.privateKey = Buffer.from(other).toString('hex');
    for (const bad of [JSON.stringify(text), good.replace(/"digest":"[0-9a-f]/, '"digest":"x'), '{', '', 'null']) {
      writeFileSync(file, bad);
      assert.equal(readDevAccountsCache(file, DEV_MNEMONIC, 10), undefined, bad);
      assert.deepEqual(cachedDevAccounts(file, DEV_MNEMONIC, 10), derived);
      assert.equal(readFileSync(file, 'utf8'), good);
    }
  });

  test('a cache that cannot be written leaves the derived accounts usable', () => {
    assert.deepEqual(cachedDevAccounts(join(dir, 'missing-dir', 'd.json'), DEV_MNEMONIC, 10), derived);
  });
});
