import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Wallet, decryptKeystoreJson, encryptKeystoreJson } from 'ethers';
import { privateKeyToAddress } from '../keys/secp.ts';
import {
  ERR_DECRYPT,
  LIGHT_SCRYPT,
  decryptKey,
  encryptKey,
  kdfMemory,
  keyFileAddress,
  validateScryptParams,
} from './v3.ts';

const KEY = Uint8Array.from(Buffer.from('ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80', 'hex'));
const ADDR = 'f39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

// The two test vectors of the Web3 Secret Storage definition (password "testpassword").
const SPEC_KEY = '7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d';
const SPEC_PBKDF2 = {
  crypto: {
    cipher: 'aes-128-ctr',
    cipherparams: { iv: '6087dab2f9fdbbfaddc31a909735c1e6' },
    ciphertext: '5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46',
    kdf: 'pbkdf2',
    kdfparams: {
      c: 262144,
      dklen: 32,
      prf: 'hmac-sha256',
      salt: 'ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd',
    },
    mac: '517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2',
  },
  id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
  version: 3,
};
const SPEC_SCRYPT_R1 = {
  crypto: {
    cipher: 'aes-128-ctr',
    cipherparams: { iv: '83dbcc02d8ccb40e466191a123791e0e' },
    ciphertext: 'd172bf743a674da9cdad04534d56926ef8358534d458fffccd4e6ad2fbde479c',
    kdf: 'scrypt',
    kdfparams: {
      dklen: 32,
      n: 262144,
      r: 1,
      p: 8,
      salt: 'ab0c7876052600dd703518d6fc3fe8984592145b591fc8fb5c6d43190334ba19',
    },
    mac: '2103ac29920d71da29f15d75b4a16dbe95cfd7ff8faea1056c33131d846e3097',
  },
  id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
  version: 3,
};

describe('v3 key files', { timeout: 60_000 }, () => {
  it('round-trips with geth field names and a lowercase address without 0x', async () => {
    const json = await encryptKey(KEY, 'pässword', LIGHT_SCRYPT);
    assert.equal(json.address, ADDR);
    assert.equal(json.version, 3);
    assert.deepEqual(Object.keys(json.crypto).sort(), [
      'cipher',
      'cipherparams',
      'ciphertext',
      'kdf',
      'kdfparams',
      'mac',
    ]);
    assert.deepEqual(json.crypto.kdfparams.n, 4096);
    assert.equal(json.crypto.kdfparams.r, 8);
    assert.equal(json.crypto.kdfparams.salt.length, 64);
    assert.match(json.id, /^[0-9a-f-]{36}$/);
    assert.equal(hex(await decryptKey(JSON.parse(JSON.stringify(json)), 'pässword')), hex(KEY));
    assert.equal(hex(keyFileAddress(json)), ADDR);
  });

  it('a wrong passphrase is geth\'s "could not decrypt key with given password"', async () => {
    const json = await encryptKey(KEY, 'right', LIGHT_SCRYPT);
    await assert.rejects(decryptKey(json, 'wrong'), { message: ERR_DECRYPT });
    await assert.rejects(decryptKey(json, ''), { message: ERR_DECRYPT });
  });

  it('is deterministic for a fixed salt, iv and id (same bytes as ethers for the same inputs)', async () => {
    const salt = new Uint8Array(32).fill(7);
    const iv = new Uint8Array(16).fill(9);
    const ours = await encryptKey(
      KEY,
      'pw',
      { n: 1024, r: 8, p: 1 },
      { salt, iv, id: '00000000-0000-4000-8000-000000000000' },
    );
    const theirs = JSON.parse(
      await encryptKeystoreJson({ address: '0x' + ADDR, privateKey: '0x' + hex(KEY) }, 'pw', {
        salt,
        iv,
        uuid: '0x' + '00'.repeat(16),
        scrypt: { N: 1024, r: 8, p: 1 },
      }),
    ) as { Crypto: { ciphertext: string; mac: string } };
    assert.equal(ours.crypto.ciphertext, theirs.Crypto.ciphertext);
    assert.equal(ours.crypto.mac, theirs.Crypto.mac);
  });

  it('reads ethers files (capital "Crypto") and ethers reads ours', async () => {
    const w = new Wallet('0x' + hex(KEY));
    const fromEthers = JSON.parse(
      await encryptKeystoreJson({ address: w.address, privateKey: w.privateKey }, 'pw', { scrypt: { N: 2048 } }),
    );
    assert.ok('Crypto' in fromEthers);
    assert.equal(hex(await decryptKey(fromEthers, 'pw')), hex(KEY));
    const ours = await encryptKey(KEY, 'pw', LIGHT_SCRYPT);
    const acct = await decryptKeystoreJson(JSON.stringify(ours), 'pw');
    assert.equal(acct.address.toLowerCase(), '0x' + ADDR);
    assert.equal(acct.privateKey, '0x' + hex(KEY));
  });

  it("decrypts the spec's pbkdf2 vector", async () => {
    assert.equal(hex(await decryptKey(SPEC_PBKDF2, 'testpassword')), SPEC_KEY);
    await assert.rejects(decryptKey(SPEC_PBKDF2, 'nope'), { message: ERR_DECRYPT });
  });

  it("decrypts the spec's r=1 scrypt vector, which OpenSSL refuses (falls back to @noble/hashes)", async () => {
    assert.equal(hex(await decryptKey(SPEC_SCRYPT_R1, 'testpassword')), SPEC_KEY);
  });

  it('refuses a file whose address does not match its key, and unsupported formats', async () => {
    const json = { ...(await encryptKey(KEY, 'pw', LIGHT_SCRYPT)), address: '00'.repeat(20) };
    await assert.rejects(decryptKey(json, 'pw'), /^KeyStoreError: key content mismatch: have account f39f/);
    await assert.rejects(decryptKey({ ...json, version: 1 }, 'pw'), /version not supported: 1/);
    await assert.rejects(
      decryptKey({ ...SPEC_PBKDF2, crypto: { ...SPEC_PBKDF2.crypto, cipher: 'aes-256-cbc' } }, 'x'),
      /cipher not supported: aes-256-cbc/,
    );
    await assert.rejects(
      decryptKey({ ...SPEC_PBKDF2, crypto: { ...SPEC_PBKDF2.crypto, kdf: 'argon2' } }, 'x'),
      /unsupported KDF: argon2/,
    );
    const huge = {
      ...SPEC_SCRYPT_R1,
      crypto: { ...SPEC_SCRYPT_R1.crypto, kdfparams: { ...SPEC_SCRYPT_R1.crypto.kdfparams, n: 2 ** 30, r: 8 } },
    };
    await assert.rejects(decryptKey(huge, 'x'), /unsupported scrypt parameters/);
    assert.throws(() => keyFileAddress(SPEC_PBKDF2), /no address/);
    assert.throws(() => keyFileAddress([]), /not a JSON object/);
  });

  it('sizes derivations and validates new-file parameters', () => {
    assert.equal(kdfMemory(SPEC_SCRYPT_R1), 128 * 262144 + 128 * 8);
    assert.equal(kdfMemory(SPEC_PBKDF2), 0);
    validateScryptParams({ n: 262144, r: 8, p: 1 });
    assert.throws(() => validateScryptParams({ n: 1000, r: 8, p: 1 }), /power of two/);
    assert.throws(() => validateScryptParams({ n: 2 ** 21, r: 8, p: 1 }), /1 GiB/);
  });

  it('encryptKey refuses an invalid private key', async () => {
    await assert.rejects(encryptKey(new Uint8Array(32), 'pw', LIGHT_SCRYPT), /invalid private key/);
    assert.equal(hex(privateKeyToAddress(KEY)), ADDR);
  });
});
