// signedParts against ethereumjs's own signing hash, and decodeTx's sender (recovered from those parts) against
// ethereumjs's getSenderAddress, for every admitted type; signatures EIP-2 refuses stay refused.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RLP } from '@ethereumjs/rlp';
import {
  createAccessList2930Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  type TypedTransaction,
} from '@ethereumjs/tx';
import { TxRejectedError } from '../../errors/index.ts';
import { deriveAccounts, DEV_MNEMONIC } from '../../keys/devAccounts.ts';
import { bigintToBytes, concatBytes } from '../../primitives/hex.ts';
import { keccak256 } from '../../primitives/hash.ts';
import { createChainCommon } from './common.ts';
import { signedParts } from './signingHash.ts';
import { decodeTx } from './validate.ts';

const common = createChainCommon(9000n);
const [alice, bob] = deriveAccounts(DEV_MNEMONIC, 2) as [
  ReturnType<typeof deriveAccounts>[0],
  ReturnType<typeof deriveAccounts>[0],
];
const rules = { evmChainId: 9000n, blockGasLimit: 30_000_000n, baseFee: 1n, minGasPrice: 0n };
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const accessList = [
  {
    address: `0x${'11'.repeat(20)}` as const,
    storageKeys: [`0x${'22'.repeat(32)}` as const, `0x${'00'.repeat(32)}` as const],
  },
];

function signed(): TypedTransaction[] {
  const base = { nonce: 7n, gasLimit: 90_000n, to: bob.address, value: 5n };
  const fee = { maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 2n };
  const auth = {
    chainId: '0x2328',
    address: `0x${'33'.repeat(20)}`,
    nonce: '0x1',
    yParity: '0x1',
    r: `0x${'44'.repeat(32)}`,
    s: `0x${'05'.repeat(32)}`,
  } as const;
  const key = alice.privateKey;
  return [
    createLegacyTx({ ...base, gasPrice: 10n ** 9n }, { common }).sign(key),
    createLegacyTx(
      { ...base, gasPrice: 10n ** 9n, nonce: 0n, value: 0n, data: new Uint8Array(300).fill(9) },
      { common },
    ).sign(key),
    createLegacyTx({ ...base, gasPrice: 10n ** 9n, to: undefined, data: Uint8Array.of(0x60, 0) }, { common }).sign(key),
    createAccessList2930Tx({ ...base, gasPrice: 10n ** 9n, accessList }, { common }).sign(key),
    createFeeMarket1559Tx({ ...base, ...fee }, { common }).sign(key),
    createFeeMarket1559Tx({ ...base, ...fee, accessList, data: new Uint8Array(70_000).fill(1) }, { common }).sign(key),
    createEOACode7702Tx({ ...base, ...fee, authorizationList: [auth] }, { common }).sign(key),
  ];
}

describe('signedParts', () => {
  test("matches ethereumjs's signing hash and signature for every admitted type", () => {
    for (const tx of signed()) {
      const parts = signedParts(tx.serialize(), tx.type, 9000n, keccak256);
      assert.ok(parts, `type ${tx.type}`);
      assert.deepEqual(parts.msgHash, tx.getMessageToVerifySignature(), `type ${tx.type}`);
      assert.deepEqual(
        [parts.r, parts.s].map((b) => Buffer.from(b)),
        [bigintToBytes(tx.r!), bigintToBytes(tx.s!)].map((b) => Buffer.from(b)),
      );
    }
  });

  test('decodeTx recovers the sender ethereumjs recovers', () => {
    for (const tx of signed()) {
      const item = decodeTx(tx.serialize(), common, rules);
      assert.deepEqual(item.sender, tx.getSenderAddress().bytes, `type ${tx.type}`);
      assert.deepEqual(item.sender, alice.address);
    }
  });

  test('a high-s twin of a valid signature is refused (EIP-2), as ethereumjs refuses it', () => {
    for (const tx of signed()) {
      const raw = tx.serialize();
      const typed = tx.type !== 0;
      const fields = RLP.decode(typed ? raw.subarray(1) : raw) as Uint8Array[];
      const n = fields.length;
      const v = fields[n - 3]!;
      // (r, n - s) with the other parity is the same signature's malleable twin.
      const flipped = typed
        ? v.length === 0
          ? Uint8Array.of(1)
          : new Uint8Array(0)
        : bigintToBytes(tx.v! === 18035n ? 18036n : 18035n);
      fields[n - 3] = flipped;
      fields[n - 1] = bigintToBytes(N - tx.s!);
      const twin = typed ? concatBytes(Uint8Array.of(tx.type), RLP.encode(fields)) : RLP.encode(fields);
      assert.throws(
        () => decodeTx(twin, common, rules),
        // A typed tx's constructor already refuses it (as malformed); a legacy one reaches the sender's recovery.
        (e: unknown) => e instanceof TxRejectedError && e.reason === (typed ? 'malformed' : 'invalidSender'),
        `type ${tx.type}`,
      );
    }
  });
});
