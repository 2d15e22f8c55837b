import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SEND_GAS, fillTxDefaults, requireSignFields, type TxDefaultsSource } from './txDefaults.ts';

const FROM = new Uint8Array(20).fill(0xaa);
const TO = new Uint8Array(20).fill(0xbb);
const GWEI = 10n ** 9n;

function source(
  over: Partial<{ base: bigint; tip: bigint; min: bigint; nonce: bigint }> = {},
): TxDefaultsSource & { feeCalls: number } {
  const s = {
    feeCalls: 0,
    chainId: 9000n,
    pendingNonce: async (a: Uint8Array) => {
      assert.deepEqual(a, FROM);
      return over.nonce ?? 7n;
    },
    fees: () => {
      s.feeCalls++;
      return { nextBaseFee: over.base ?? GWEI, tip: over.tip ?? 2n, minGasPrice: over.min ?? 0n };
    },
  };
  return s;
}

describe('transaction defaults', () => {
  it('a bare transfer: 1559, gas 90000, pending nonce, fee cap 2 × next base fee + tip, value 0', async () => {
    const f = await fillTxDefaults({ from: FROM, to: TO }, FROM, source());
    assert.deepEqual(f, {
      type: 2,
      nonce: 7n,
      gasLimit: DEFAULT_SEND_GAS,
      to: TO,
      value: 0n,
      data: new Uint8Array(),
      accessList: [],
      maxFeePerGas: 2n * GWEI + 2n,
      maxPriorityFeePerGas: 2n,
    });
    assert.equal(DEFAULT_SEND_GAS, 90000n);
  });

  it('keeps what the caller gave and asks the fee market for nothing then', async () => {
    const s = source();
    const f = await fillTxDefaults(
      { to: TO, gas: 21000n, nonce: 1n, value: 5n, maxFeePerGas: 9n, maxPriorityFeePerGas: 3n, chainId: 9000n },
      FROM,
      s,
    );
    assert.equal(f.gasLimit, 21000n);
    assert.equal(f.nonce, 1n);
    assert.equal(f.value, 5n);
    assert.equal(f.maxFeePerGas, 9n);
    assert.equal(f.maxPriorityFeePerGas, 3n);
    assert.equal(s.feeCalls, 0);
  });

  it('gasPrice makes a legacy tx (type 1 with an access list); a legacy default price is base fee + tip', async () => {
    assert.equal((await fillTxDefaults({ to: TO, gasPrice: 5n }, FROM, source())).type, 0);
    const al = await fillTxDefaults(
      { to: TO, gasPrice: 5n, accessList: [{ address: TO, storageKeys: [] }] },
      FROM,
      source(),
    );
    assert.equal(al.type, 1);
    assert.deepEqual(al.accessList, [[TO, []]]);
    const typed0 = await fillTxDefaults({ to: TO, type: 0n }, FROM, source());
    assert.equal(typed0.gasPrice, GWEI + 2n);
  });

  it("never defaults a fee cap below the node's minimum gas price", async () => {
    const f = await fillTxDefaults({ to: TO }, FROM, source({ base: 7n, tip: 0n, min: 1000n }));
    assert.equal(f.maxFeePerGas, 1000n);
    const g = await fillTxDefaults({ to: TO, type: 0n }, FROM, source({ base: 7n, tip: 0n, min: 1000n }));
    assert.equal(g.gasPrice, 1000n);
  });

  it('a given fee cap bounds the suggested tip', async () => {
    const f = await fillTxDefaults({ to: TO, maxFeePerGas: 1n }, FROM, source({ tip: 5n }));
    assert.equal(f.maxPriorityFeePerGas, 1n);
  });

  it("geth's errors: chain id, empty creation, fee cap below tip, type conflicts", async () => {
    await assert.rejects(fillTxDefaults({ to: TO, chainId: 1n }, FROM, source()), {
      message: "chainId does not match node's (have=1, want=9000)",
    });
    await assert.rejects(fillTxDefaults({}, FROM, source()), {
      message: 'contract creation without any data provided',
    });
    await assert.rejects(fillTxDefaults({ to: TO, maxFeePerGas: 1n, maxPriorityFeePerGas: 2n }, FROM, source()), {
      message: 'maxFeePerGas (1) < maxPriorityFeePerGas (2)',
    });
    await assert.rejects(fillTxDefaults({ to: TO, type: 3n }, FROM, source()), /transaction type 3 not supported/);
    await assert.rejects(fillTxDefaults({ to: TO, type: 0n, maxFeePerGas: 1n }, FROM, source()), /type 0/);
    await assert.rejects(
      fillTxDefaults({ to: TO, type: 2n, gasPrice: 1n }, FROM, source()),
      /gasPrice specified for a type 2/,
    );
    const create = await fillTxDefaults({ data: Uint8Array.from([0x60, 0]) }, FROM, source());
    assert.equal(create.to, undefined);
  });

  it("eth_signTransaction needs from, gas, fees and nonce (geth's messages)", () => {
    const full = { from: FROM, to: TO, gas: 1n, gasPrice: 1n, nonce: 0n };
    requireSignFields(full);
    requireSignFields({ ...full, gasPrice: undefined, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n });
    assert.throws(() => requireSignFields({ ...full, from: undefined }), { message: 'sender not specified' });
    assert.throws(() => requireSignFields({ ...full, gas: undefined }), { message: 'gas not specified' });
    assert.throws(() => requireSignFields({ ...full, gasPrice: undefined, maxFeePerGas: 2n }), {
      message: 'missing gasPrice or maxFeePerGas/maxPriorityFeePerGas',
    });
    assert.throws(() => requireSignFields({ ...full, nonce: undefined }), { message: 'nonce not specified' });
  });
});
