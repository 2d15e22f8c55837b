import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx';
import { TxRejectedError } from '../../errors/index.ts';
import { deriveAccounts, DEV_MNEMONIC } from '../../keys/devAccounts.ts';
import { concatBytes } from '../../primitives/hex.ts';
import { forkRules, intrinsicGas } from '../../evm/index.ts';
import { engineTxOf } from './engineTx.ts';
import { txOf } from './execTx.testing.ts';
import { createChainCommon } from './common.ts';
import { checkAgainstState, decodeTx, feeCap, MAX_TX_BYTES, tipCap } from './validate.ts';
import { testRules } from './validate.testing.ts';

const common = createChainCommon(9000n);
const [alice, bob] = deriveAccounts(DEV_MNEMONIC, 2) as [
  ReturnType<typeof deriveAccounts>[0],
  ReturnType<typeof deriveAccounts>[0],
];
const GWEI = 1_000_000_000n;
const rules = testRules();
const rich = { nonce: 0n, balance: 10n ** 22n };

function dyn(
  over: Partial<{
    nonce: bigint;
    gasLimit: bigint;
    maxFeePerGas: bigint;
    maxPriorityFeePerGas: bigint;
    value: bigint;
    data: Uint8Array;
  }> = {},
  c = common,
) {
  return createFeeMarket1559Tx(
    {
      nonce: 0n,
      gasLimit: 21_000n,
      maxFeePerGas: 2n * GWEI,
      maxPriorityFeePerGas: GWEI,
      to: bob.address,
      value: 1n,
      ...over,
    },
    { common: c },
  ).sign(alice.privateKey);
}

const rejects = (fn: () => unknown, msg: RegExp) =>
  assert.throws(fn, (e: unknown) => e instanceof TxRejectedError && msg.test(e.message), String(msg));

describe('decodeTx', () => {
  test('accepts a signed EIP-1559 tx and recovers the sender', () => {
    const tx = dyn();
    const item = decodeTx(tx.serialize(), rules);
    assert.deepEqual(item.sender, alice.address);
    assert.deepEqual(item.hash, tx.hash());
    assert.deepEqual(item.encoded, tx.serialize());
    assert.equal(item.tx.type, 2);
  });

  test('accepts EIP-155 legacy and EIP-2930 txs', () => {
    const legacy = createLegacyTx({ nonce: 0n, gasLimit: 21_000n, gasPrice: GWEI, to: bob.address }, { common }).sign(
      alice.privateKey,
    );
    const decoded = decodeTx(legacy.serialize(), rules);
    assert.deepEqual(decoded.sender, alice.address);
    assert.deepEqual([decoded.hash, decoded.encoded], [legacy.hash(), legacy.serialize()]);
    const al = createAccessList2930Tx(
      { nonce: 0n, gasLimit: 21_000n, gasPrice: GWEI, to: bob.address, accessList: [] },
      { common },
    ).sign(alice.privateKey);
    assert.equal(decodeTx(al.serialize(), rules).tx.type, 1);
  });

  test('keeps the received bytes as the encoding (every accepted input is canonical), hash as tx.hash()', () => {
    const legacy = createLegacyTx({ nonce: 1n, gasLimit: 21_000n, gasPrice: GWEI, to: bob.address }, { common });
    for (const tx of [dyn(), dyn({ data: new Uint8Array(100).fill(7) }), legacy.sign(alice.privateKey)]) {
      const raw = tx.serialize();
      const item = decodeTx(raw, rules);
      assert.deepEqual([item.encoded, item.hash, item.sender], [raw, tx.hash(), alice.address]);
    }
    // ethereumjs took a typed tx's chainId with leading zeros (and re-encoded it); geth's decoder refuses any
    // integer with leading zeros, the chain id included, and so does Kestrel's.
    const fields = RLP.decode(dyn().serialize().subarray(1)) as Uint8Array[];
    fields[0] = concatBytes(Uint8Array.of(0), fields[0]!);
    rejects(
      () => decodeTx(concatBytes(Uint8Array.of(2), RLP.encode(fields)), rules),
      /^rlp: non-canonical integer \(leading zero bytes\) for \*big\.Int, decoding into \(types\.DynamicFeeTx\)\.ChainID$/,
    );
    const legacyFields = RLP.decode(legacy.sign(alice.privateKey).serialize()) as Uint8Array[];
    legacyFields[0] = Uint8Array.of(0, 1);
    rejects(
      () => decodeTx(RLP.encode(legacyFields), rules),
      /^rlp: non-canonical integer \(leading zero bytes\) for uint64, decoding into \(types\.LegacyTx\)\.Nonce$/,
    );
  });

  test('rejects unprotected legacy txs (EIP-155 required)', () => {
    const homestead = createCustomCommon({ chainId: 9000 }, Mainnet, { hardfork: Hardfork.Homestead });
    const tx = createLegacyTx(
      { nonce: 0n, gasLimit: 21_000n, gasPrice: GWEI, to: bob.address },
      { common: homestead },
    ).sign(alice.privateKey);
    assert.ok(tx.v === 27n || tx.v === 28n, 'signed without a chain id');
    rejects(() => decodeTx(tx.serialize(), rules), /only replay-protected \(EIP-155\) transactions allowed/);
  });

  test('rejects a wrong chain id (typed and legacy)', () => {
    const other = createChainCommon(1n);
    rejects(() => decodeTx(dyn({}, other).serialize(), rules), /chain id/i);
    const legacy = createLegacyTx(
      { nonce: 0n, gasLimit: 21_000n, gasPrice: GWEI, to: bob.address },
      { common: other },
    ).sign(alice.privateKey);
    rejects(() => decodeTx(legacy.serialize(), rules), /chain id/i);
    // Same Common, but the admission rules expect another id.
    rejects(
      () => decodeTx(dyn().serialize(), { ...rules, evmChainId: 9001n }),
      /invalid chain id for signer: have 9000 want 9001/,
    );
  });

  test('rejects garbage, empty and oversized input', () => {
    rejects(() => decodeTx(new Uint8Array(0), rules), /typed transaction too short/);
    rejects(() => decodeTx(Uint8Array.of(0xf8, 0x01, 0x02), rules), /^rlp: non-canonical size information$/);
    rejects(() => decodeTx(Uint8Array.of(0xc0), rules), /^rlp: too few elements for types.LegacyTx$/);
    rejects(() => decodeTx(Uint8Array.of(0x02, 0xc0), rules), /^rlp: too few elements for types.DynamicFeeTx$/);
    const good = dyn().serialize();
    rejects(
      () => decodeTx(good.subarray(0, good.length - 3), rules),
      /^rlp: value size exceeds available input length$/,
    );
    rejects(() => decodeTx(concatBytes(good, Uint8Array.of(0)), rules), /^rlp: input contains more than one value$/);
    rejects(() => decodeTx(new Uint8Array(MAX_TX_BYTES + 1).fill(0xc0), rules), /oversized data/);
  });

  test('rejects unsupported types (3 = blobs, and unknown)', () => {
    rejects(
      () => decodeTx(concatBytes(Uint8Array.of(3), dyn().serialize().subarray(1)), rules),
      /transaction type not supported/,
    );
    rejects(() => decodeTx(Uint8Array.of(0x05, 0xc0), rules), /transaction type not supported/);
    rejects(() => decodeTx(Uint8Array.of(0x7f, 0xc0), rules), /transaction type not supported/);
  });

  test('feeCap / tipCap', () => {
    const d = dyn({ maxFeePerGas: 7n, maxPriorityFeePerGas: 3n });
    assert.equal(feeCap(txOf(d)), 7n);
    assert.equal(tipCap(txOf(d)), 3n);
    const l = createLegacyTx({ gasLimit: 21_000n, gasPrice: 5n, to: bob.address }, { common }).sign(alice.privateKey);
    assert.equal(feeCap(txOf(l)), 5n);
    assert.equal(tipCap(txOf(l)), 5n);
  });
});

describe('checkAgainstState', () => {
  const item = (tx: ReturnType<typeof dyn>) => decodeTx(tx.serialize(), rules);

  test('a valid tx passes', () => {
    checkAgainstState(item(dyn()), rich, rules);
    checkAgainstState(item(dyn({ nonce: 5n })), rich, rules); // future nonces are fine at admission
  });

  test('nonce too low', () => {
    rejects(() => checkAgainstState(item(dyn({ nonce: 2n })), { ...rich, nonce: 3n }, rules), /^nonce too low$/);
  });

  test('insufficient funds for gas * price + value', () => {
    const tx = dyn({ value: 10n ** 18n });
    const need = 21_000n * 2n * GWEI + 10n ** 18n;
    rejects(
      () => checkAgainstState(item(tx), { nonce: 0n, balance: need - 1n }, rules),
      /^insufficient funds for gas \* price \+ value$/,
    );
    checkAgainstState(item(tx), { nonce: 0n, balance: need }, rules);
  });

  test('intrinsic gas too low', () => {
    rejects(() => checkAgainstState(item(dyn({ gasLimit: 20_999n })), rich, rules), /^intrinsic gas too low$/);
    // calldata costs gas too
    rejects(
      () => checkAgainstState(item(dyn({ gasLimit: 21_000n, data: new Uint8Array(10).fill(1) })), rich, rules),
      /^intrinsic gas too low$/,
    );
  });

  test('exceeds block gas limit', () => {
    rejects(() => checkAgainstState(item(dyn({ gasLimit: 30_000_001n })), rich, rules), /^exceeds block gas limit$/);
    checkAgainstState(item(dyn({ gasLimit: 30_000_000n })), rich, rules);
  });

  test('transaction underpriced below the minimum gas price', () => {
    const tx = item(dyn({ maxFeePerGas: 2n * GWEI }));
    rejects(() => checkAgainstState(tx, rich, { ...rules, minGasPrice: 2n * GWEI + 1n }), /^transaction underpriced$/);
    checkAgainstState(tx, rich, { ...rules, minGasPrice: 2n * GWEI });
    const legacy = createLegacyTx({ gasLimit: 21_000n, gasPrice: GWEI, to: bob.address }, { common }).sign(
      alice.privateKey,
    );
    rejects(
      () => checkAgainstState(decodeTx(legacy.serialize(), rules), rich, { ...rules, minGasPrice: 2n * GWEI }),
      /^transaction underpriced$/,
    );
  });

  test('fee cap below base fee', () => {
    const tx = item(dyn({ maxFeePerGas: GWEI - 1n, maxPriorityFeePerGas: 0n }));
    rejects(
      () => checkAgainstState(tx, rich, rules),
      /^max fee per gas less than block base fee: address 0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266, maxFeePerGas: 999999999, baseFee: 1000000000$/,
    );
    checkAgainstState(tx, rich, { ...rules, baseFee: GWEI - 1n });
  });
  test('calldata below the EIP-7623 floor (Prague) is refused at admission, as geth does', () => {
    const tx = item(dyn({ gasLimit: 40_000n, data: new Uint8Array(1000).fill(1) }));
    const gas = intrinsicGas(engineTxOf(tx.tx, tx.sender), 'Prague');
    assert.deepEqual([gas.gas, gas.floor], [37_000n, 61_000n]);
    rejects(() => checkAgainstState(tx, rich, rules), /insufficient gas for floor data gas cost/);
  });

  test("intrinsic gas is checked before nonce and balance (geth's stateless checks come first)", () => {
    rejects(
      () => checkAgainstState(item(dyn({ gasLimit: 20_000n })), { nonce: 0n, balance: 0n }, rules),
      /^intrinsic gas too low$/,
    );
    rejects(
      () => checkAgainstState(item(dyn({ gasLimit: 20_000n })), { nonce: 1n, balance: 10n ** 22n }, rules),
      /^intrinsic gas too low$/,
    );
  });

  test('EIP-7825: a 30,000,000-gas tx is refused on Osaka with geth words (before the block limit), kept on Prague', () => {
    const osaka = { ...rules, blockGasLimit: 60_000_000n, txGasLimitCap: forkRules('Osaka').txGasLimitCap };
    const prague = { ...rules, blockGasLimit: 60_000_000n, txGasLimitCap: forkRules('Prague').txGasLimitCap };
    // Decoding accepts it on either fork (an Osaka chain decodes as Prague): the refusal is admission's, in geth's words.
    const big = decodeTx(dyn({ gasLimit: 30_000_000n }).serialize(), osaka);
    assert.throws(
      () => checkAgainstState(big, rich, osaka),
      (e: unknown) =>
        e instanceof TxRejectedError &&
        e.reason === 'gasLimitTooHigh' &&
        e.message === 'transaction gas limit too high (cap: 16777216, tx: 30000000)',
    );
    checkAgainstState(big, rich, prague);
    // Above the block limit too: the cap is named first, as geth's pool checks it first.
    rejects(
      () => checkAgainstState(big, rich, { ...osaka, blockGasLimit: 20_000_000n }),
      /^transaction gas limit too high/,
    );
    checkAgainstState(item(dyn({ gasLimit: 1n << 24n })), rich, osaka);
    rejects(
      () => checkAgainstState(item(dyn({ gasLimit: (1n << 24n) + 1n })), rich, osaka),
      /cap: 16777216, tx: 16777217/,
    );
  });
});
