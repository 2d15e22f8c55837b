import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bytesToHex, hexToBytes } from '../primitives/hex.ts';
import { deriveAccounts, DEV_MNEMONIC } from './devAccounts.ts';
import { privateKeyToAddress, randomPrivateKey } from './secp.ts';

describe('dev accounts', () => {
  const accounts = deriveAccounts(DEV_MNEMONIC, 10);

  test('the well-known Anvil/Hardhat addresses', () => {
    assert.equal(accounts.length, 10);
    assert.equal(bytesToHex(accounts[0]!.address), '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'.toLowerCase());
    assert.equal(bytesToHex(accounts[1]!.address), '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'.toLowerCase());
    assert.equal(bytesToHex(accounts[9]!.address), '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720'.toLowerCase());
  });

  test('matches the plain BIP-39/BIP-32 derivation for every account', () => {
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync(DEV_MNEMONIC));
    deriveAccounts(DEV_MNEMONIC, 10).forEach((a, i) => {
      assert.deepEqual(a.privateKey, root.derive(`m/44'/60'/0'/0/${i}`).privateKey);
    });
  });

  test('the well-known private key of account 0', () => {
    assert.equal(
      bytesToHex(accounts[0]!.privateKey),
      '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
    );
  });

  test('derivation is deterministic and prefix-stable', () => {
    const three = deriveAccounts(DEV_MNEMONIC, 3);
    for (let i = 0; i < 3; i++) assert.deepEqual(three[i]!.address, accounts[i]!.address);
    assert.equal(new Set(accounts.map((a) => bytesToHex(a.address))).size, 10);
  });

  test('privateKeyToAddress and randomPrivateKey', () => {
    const k = hexToBytes('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
    assert.equal(bytesToHex(privateKeyToAddress(k)), bytesToHex(accounts[1]!.address));
    const r1 = randomPrivateKey();
    const r2 = randomPrivateKey();
    assert.equal(r1.length, 32);
    assert.notDeepEqual(r1, r2);
    assert.equal(privateKeyToAddress(r1).length, 20);
  });
});
