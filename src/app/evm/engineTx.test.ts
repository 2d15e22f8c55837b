import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createEOACode7702Tx, createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx';
import { executeTransaction, initEngine, WorldState } from '../../evm/index.ts';
import { MemReader } from '../../evm/testing/mem-reader.testing.ts';
import { deriveAccounts, DEV_MNEMONIC } from '../../keys/devAccounts.ts';
import { bytesToBigint, bytesToHex } from '../../primitives/hex.ts';
import { createChainCommon } from './common.ts';
import { addressBytes, addressOf, blockEnvOf, callTxOf, engineFork, engineTxOf, KESTREL_RULES } from './engineTx.ts';
import { txOf } from './execTx.testing.ts';

const common = createChainCommon(9000n);
const [alice, bob] = deriveAccounts(DEV_MNEMONIC, 2) as [
  ReturnType<typeof deriveAccounts>[0],
  ReturnType<typeof deriveAccounts>[0],
];
const coinbase = new Uint8Array(20).fill(0xcb);
const ctx = {
  number: 5n,
  parentHash: new Uint8Array(32),
  timestamp: 1234n,
  coinbase,
  gasLimit: 30_000_000n,
  baseFeePerGas: 7n,
  mixHash: new Uint8Array(32).fill(1),
};

describe('engineTx', () => {
  before(initEngine);

  it('maps a block context to a BlockEnv (prevRandao from the mix hash, the minimum blob fee)', () => {
    const env = blockEnvOf(ctx, 9000n);
    assert.equal(env.coinbase, addressOf(coinbase));
    assert.equal(env.prevRandao, bytesToBigint(ctx.mixHash));
    assert.deepEqual(
      [env.number, env.timestamp, env.gasLimit, env.baseFee, env.blobBaseFee, env.chainId],
      [5n, 1234n, 30_000_000n, 7n, 1n, 9000n],
    );
    assert.equal(blockEnvOf(ctx, 9000n, 99n).blobBaseFee, 99n);
    // The Common's fork is the chain's (Osaka by default); its hardfork names the formats (Prague's for Osaka).
    assert.equal(engineFork(common), 'Osaka');
    assert.equal(common.hardfork(), 'prague');
    for (const fork of ['Cancun', 'Prague', 'Osaka'] as const)
      assert.equal(engineFork(createChainCommon(1n, undefined, fork)), fork);
    assert.equal(createChainCommon(1n, undefined, 'Cancun').hardfork(), 'cancun');
    assert.deepEqual(addressBytes(addressOf(coinbase)), coinbase);
  });

  it('maps signed transactions of each type; the whole fee goes to the coinbase', () => {
    const sender = alice.address;
    const legacy = createLegacyTx(
      { nonce: 3n, gasLimit: 21_000n, gasPrice: 10n, to: bob.address, value: 5n },
      { common },
    ).sign(alice.privateKey);
    const l = engineTxOf(txOf(legacy), sender);
    assert.deepEqual([l.type, l.nonce, l.gasPrice, l.value, l.to], [0, 3n, 10n, 5n, addressOf(bob.address)]);
    const dyn = createFeeMarket1559Tx(
      {
        nonce: 0n,
        gasLimit: 30_000n,
        maxFeePerGas: 9n,
        maxPriorityFeePerGas: 1n,
        to: bob.address,
        value: 1n,
        accessList: [[bob.address, [Uint8Array.of(...new Uint8Array(31), 2)]]],
      },
      { common },
    ).sign(alice.privateKey);
    const d = engineTxOf(txOf(dyn), sender);
    assert.deepEqual([d.type, d.maxFeePerGas, d.maxPriorityFeePerGas], [2, 9n, 1n]);
    assert.deepEqual(d.accessList, [{ address: addressOf(bob.address), storageKeys: [2n] }]);
    const setCode = createEOACode7702Tx(
      {
        nonce: 0n,
        gasLimit: 60_000n,
        maxFeePerGas: 9n,
        maxPriorityFeePerGas: 1n,
        to: bob.address,
        authorizationList: [
          { chainId: '0x2328', address: bytesToHex(bob.address), nonce: '0x1', yParity: '0x1', r: '0x02', s: '0x03' },
        ],
      },
      { common },
    ).sign(alice.privateKey);
    const auth = engineTxOf(txOf(setCode), sender).authorizationList;
    assert.deepEqual(auth, [{ chainId: 9000n, address: addressOf(bob.address), nonce: 1n, yParity: 1n, r: 2n, s: 3n }]);

    // Executed under Kestrel's rule, the coinbase receives gasUsed × effective price (base fee included).
    const world = new WorldState(new MemReader().set(addressOf(sender), { balance: 10n ** 18n }));
    const out = executeTransaction(world, blockEnvOf(ctx, 9000n), engineTxOf(txOf(dyn), sender), {
      fork: engineFork(common),
      rules: KESTREL_RULES,
    });
    assert.ok(out.ok);
    const paid = world.diff().find((a) => a.address === addressOf(coinbase))!;
    assert.equal(paid.balance, out.result.gasUsed * 8n);
  });

  it("types a call request as geth's TransactionArgs do", () => {
    const to = bob.address;
    assert.equal(callTxOf({ to }, 50_000n, 0n).type, 0);
    assert.equal(callTxOf({ to, accessList: [] }, 50_000n, 0n).type, 1);
    const tip = callTxOf({ to, maxPriorityFeePerGas: 4n }, 50_000n, 2n);
    assert.deepEqual([tip.type, tip.maxFeePerGas, tip.maxPriorityFeePerGas, tip.nonce], [2, 4n, 4n, 2n]);
    const legacy = callTxOf({ to, gasPrice: 3n, value: 9n }, 50_000n, 0n);
    assert.deepEqual([legacy.gasPrice, legacy.value, legacy.from, legacy.gasLimit], [3n, 9n, 0n, 50_000n]);
    assert.equal(callTxOf({ data: Uint8Array.of(0) }, 60_000n, 0n).to, undefined);
  });
});
