import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { initEngine } from '../../evm/index.ts';
import { MemReader } from '../../evm/testing/mem-reader.testing.ts';
import { ExecutionError } from '../../errors/index.ts';
import { jumpLocation, precompileFailure, senderCheck, statusError, toppedUp } from './callRules.ts';
import { blockEnvOf, callTxOf } from './engineTx.ts';

const env = blockEnvOf(
  {
    number: 1n,
    parentHash: new Uint8Array(32),
    timestamp: 1n,
    coinbase: new Uint8Array(20),
    gasLimit: 30_000_000n,
    baseFeePerGas: 10n,
    mixHash: new Uint8Array(32),
  },
  9000n,
);
const FROM = Uint8Array.of(...new Uint8Array(19), 0x42);
const message = (fn: () => void): string => {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ExecutionError);
    return e.message;
  }
  return 'no error';
};

describe('call rules', () => {
  before(initEngine);

  it("keeps ethereumjs' texts for failed end states", () => {
    assert.equal(statusError('success'), undefined);
    assert.equal(statusError('revert'), 'revert');
    assert.equal(statusError('return_data_out_of_bounds'), 'out of gas');
    assert.equal(statusError('code_too_large'), 'code size to deposit exceeds maximum code size');
    assert.equal(
      jumpLocation(Uint8Array.of(0x60, 0x00, 0x56), 0xbd770416a3345f91e4b34576cb804a576fa48eb1n, 2),
      '0x0fdb9081f94bd9b14245d0a4dbb40f171d9f0566f451abf0b2f5e8e9019642c5/0xbd770416a3345f91e4b34576cb804a576fa48eb1:2',
    );
  });

  it('names a direct precompile failure as ethereumjs did (its input-shape checks)', () => {
    assert.equal(precompileFailure(0x08, new Uint8Array(1)), 'invalid input length');
    assert.equal(precompileFailure(0x08, new Uint8Array(192)), 'out of gas');
    assert.equal(precompileFailure(0x09, new Uint8Array(212)), 'value out of range');
    assert.equal(precompileFailure(0x0c, new Uint8Array(0)), 'input is empty');
    assert.equal(precompileFailure(0x0c, new Uint8Array(161)), 'invalid input length');
    assert.equal(precompileFailure(0x0b, new Uint8Array(255)), 'invalid input length');
    assert.equal(precompileFailure(0x06, new Uint8Array(128)), 'out of gas');
  });

  it("refuses in runTx's order: tip above cap, intrinsic gas, base fee, sender code, funds", () => {
    const reader = new MemReader().set(0x42n, { balance: 100n });
    const check = (req: Parameters<typeof callTxOf>[0], gas: bigint, priced: boolean) =>
      message(() => senderCheck(callTxOf(req, gas, 0n), env, 21_000n, reader.account(0x42n), reader, priced));
    assert.match(check({ from: FROM, maxFeePerGas: 1n, maxPriorityFeePerGas: 2n }, 100n, true), /^maxFeePerGas cannot/);
    assert.match(check({ from: FROM, gasPrice: 1n }, 100n, true), /^intrinsic gas too low: /);
    assert.match(check({ from: FROM, gasPrice: 1n }, 21_000n, true), /^max fee per gas less than block base fee: /);
    assert.equal(check({ from: FROM, gasPrice: 10n }, 21_000n, true), 'insufficient funds for gas * price + value');
    assert.equal(check({ from: FROM, value: 1000n }, 21_000n, false), 'no error');
    const contract = new MemReader().set(0x42n, { code: Uint8Array.of(0) });
    assert.equal(
      message(() =>
        senderCheck(callTxOf({ from: FROM }, 21_000n, 0n), env, 21_000n, contract.account(0x42n), contract, false),
      ),
      'invalid sender address, address is not EOA (EIP-3607)',
    );
  });

  it("credits an unpriced call's sender what it lacks, never less than it has", () => {
    const reader = new MemReader().set(0x42n, { balance: 100n, nonce: 3n });
    const lacking = toppedUp(reader, callTxOf({ from: FROM, value: 500n }, 21_000n, 0n));
    assert.equal(lacking.account(0x42n)?.balance, 500n);
    assert.equal(lacking.account(0x42n)?.nonce, 3n);
    assert.equal(toppedUp(reader, callTxOf({ from: FROM, value: 50n }, 21_000n, 0n)), reader);
    const absent = toppedUp(new MemReader(), callTxOf({ from: FROM, maxPriorityFeePerGas: 2n }, 21_000n, 0n));
    assert.equal(absent.account(0x42n)?.balance, 42_000n);
  });
});
