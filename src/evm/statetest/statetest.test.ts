// The state-test runner's parts: fixture decoding (geth's toMessage rules), the txbytes check, pre-state roots
// against @ethereumjs/mpt, and the command's output on a small fixture run by Kestrel's engine.
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { runStatetestCommand } from '../../cli/commands/evm.ts';
import secp256k1 from 'secp256k1';
import { initKeccak, keccak256 } from '../../primitives/keccak.ts';
import { rlpEncode } from '../../primitives/rlp.ts';
import { bigintToFixedBytes } from '../../primitives/bytes.ts';
import { encodeAccount } from '../../primitives/trie/stateRoot.ts';
import { addressOfKey, parseQuantity, parseStateTestFile, type StateTest } from './fixture.ts';
import { kestrelEngine } from './kestrelEngine.ts';
import { readFixtureFiles } from './load.ts';
import { logsHash, RootCache, testBlockHash } from './poststate.ts';
import { txBytesError } from './txbytes.ts';

const FIXTURES = path.join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'ethereum-tests');
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

// A minimal fixture in the published format: a value transfer of 1 wei at gas price 10 (base fee 7).
const SECRET = '0x45a915e4d060149eb4365960e6a7a45f334393093061116b197e3240065ff2d8';
const SENDER = '0xa94f5374fce5edbc8e2a8697c15331677e6ebf0b';
function fixture(post: Record<string, unknown[]>, tx: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    transfer: {
      env: {
        currentCoinbase: '0x2adc25665018aa1fe0e6bc666dac8fc2697ff9ba',
        currentGasLimit: '0x055d4a80',
        currentNumber: '0x01',
        currentTimestamp: '0x03e8',
        currentRandom: '0x' + '00'.repeat(32),
        currentDifficulty: '0x00',
        currentBaseFee: '0x07',
        currentExcessBlobGas: '0x00',
      },
      pre: { [SENDER]: { nonce: '0x00', balance: '0x3635c9adc5dea00000', code: '0x', storage: {} } },
      transaction: {
        nonce: '0x00',
        gasPrice: '0x0a',
        gasLimit: ['0x5208', '0x5207'],
        to: '0x1000000000000000000000000000000000000000',
        value: ['0x01'],
        data: ['0x'],
        secretKey: SECRET,
        ...tx,
      },
      post,
    },
  };
}

before(async () => {
  await initKeccak();
});

describe('fixture decoding', () => {
  test('quantities: hex, decimal, the bare 0x, and the malformed big-int form', () => {
    assert.equal(parseQuantity('0x10'), 16n);
    assert.equal(parseQuantity('16'), 16n);
    assert.equal(parseQuantity('0x'), 0n);
    assert.equal(parseQuantity('0x:bigint 0x1000'), undefined);
  });

  test('the sender comes from the secret key when no sender is given', () => {
    assert.equal(addressOfKey(Buffer.from(SECRET.slice(2), 'hex')), BigInt(SENDER));
  });

  test('tx type follows the fields present; legacy prices fill the 1559 fields; indexes pick data/gas/value', () => {
    const entry = {
      hash: '0x' + '00'.repeat(32),
      logs: '0x' + '00'.repeat(32),
      indexes: { data: 0, gas: 1, value: 0 },
    };
    const [legacy] = parseStateTestFile(fixture({ Cancun: [entry] }), 'f.json') as [StateTest];
    const c = legacy.cases[0]!;
    assert.ok(c.tx.ok);
    assert.equal(c.tx.value.type, 0);
    assert.equal(c.tx.value.gasLimit, 0x5207n);
    assert.equal(c.tx.value.maxFeePerGas, 10n);
    assert.equal(c.tx.value.maxPriorityFeePerGas, 10n);
    assert.equal(c.name, 'transfer');
    const setCode = parseStateTestFile(
      fixture({ Prague: [entry, { ...entry, indexes: { data: 0, gas: 0, value: 0 } }] }, { authorizationList: [] }),
      'f.json',
    )[0]!;
    assert.ok(
      setCode.cases[0]!.tx.ok && setCode.cases[0]!.tx.value.type === 4,
      'an empty authorizationList is a set-code tx',
    );
    assert.equal(setCode.cases[1]!.name, 'transfer_d0g0v0');
    const overflow = parseStateTestFile(
      fixture({ Cancun: [entry] }, { value: ['0x:bigint 0x1' + '00'.repeat(32)] }),
      'f',
    )[0]!;
    assert.equal(overflow.cases[0]!.tx.ok, false, 'a value beyond 256 bits is a rejected tx, as in geth');
  });
});

describe('txbytes', () => {
  test("every Prague and Cancun case's txbytes of one EEST set decodes, unless the case expects an exception", () => {
    let checked = 0;
    for (const f of readFixtureFiles(path.join(FIXTURES, 'eest-prague.json.br')).slice(0, 40)) {
      for (const t of parseStateTestFile(f.json, f.file)) {
        for (const c of t.cases) {
          const err = txBytesError(c.txBytes, t.env.chainId, c.fork === 'Prague');
          if (c.expectException === undefined) assert.equal(err, undefined, `${c.name}: ${err}`);
          checked++;
        }
      }
    }
    assert.ok(checked > 100);
  });

  test('malformed, wrong-chain and unsupported bytes are refused', () => {
    // A legacy transfer signed under EIP-155 for chain 1, then damaged copies of it.
    const fields = [
      new Uint8Array(0),
      Uint8Array.of(10),
      Uint8Array.of(0x52, 0x08),
      new Uint8Array(20).fill(0x10),
      Uint8Array.of(1),
      new Uint8Array(0),
    ];
    const sigHash = keccak256(rlpEncode([...fields, Uint8Array.of(1), new Uint8Array(0), new Uint8Array(0)]));
    const { signature, recid } = secp256k1.ecdsaSign(sigHash, Buffer.from(SECRET.slice(2), 'hex'));
    const trim = (b: Uint8Array) => b.subarray(b.findIndex((x) => x !== 0));
    const good = Buffer.from(
      rlpEncode([...fields, Uint8Array.of(37 + recid), trim(signature.subarray(0, 32)), trim(signature.subarray(32))]),
    );
    assert.equal(txBytesError(good, 1n, false), undefined);
    assert.equal(txBytesError(good.subarray(0, 20), 1n, false)?.startsWith('rlp:'), true);
    assert.match(txBytesError(Buffer.concat([good, Buffer.from([0])]), 1n, false)!, /rlp/);
    assert.match(txBytesError(good, 5n, false)!, /invalid chain id/);
    assert.equal(txBytesError(Buffer.from([0x05, 0xc0]), 1n, true), 'transaction type not supported');
    assert.equal(txBytesError(Buffer.from([0x04, 0xc0]), 1n, true), 'rlp: too few elements for transaction');
    assert.equal(txBytesError(new Uint8Array(0), 1n, true), 'typed transaction too short');
  });
});

describe('roots', () => {
  test('pre-state roots equal a secure @ethereumjs/mpt built from the same accounts', async () => {
    const files = readFixtureFiles(path.join(FIXTURES, 'eest-cancun.json.br'));
    for (const f of files.slice(0, 25)) {
      for (const t of parseStateTestFile(f.json, f.file)) {
        const oracle = new MerklePatriciaTrie({ useKeyHashing: true });
        for (const [address, acc] of t.pre) {
          const storage = new MerklePatriciaTrie({ useKeyHashing: true });
          for (const [slot, value] of acc.storage) await storage.put(bigintToFixedBytes(slot, 32), RLP.encode(value));
          await oracle.put(
            bigintToFixedBytes(address, 20),
            encodeAccount(acc.nonce, acc.balance, storage.root(), acc.codeHash),
          );
        }
        assert.equal(hex(new RootCache().stateRoot(t.pre)), hex(oracle.root()), t.name);
      }
    }
  });

  test('logs hash of no logs is keccak(rlp([])); BLOCKHASH is keccak of the decimal number', () => {
    assert.equal(hex(logsHash([])), '1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347');
    assert.equal(hex(rlpEncode([])), 'c0');
    assert.equal(hex(testBlockHash(0n)), '044852b2a670ade5407e78fb2863c51de9fcb96542a07186fe3aeda6bb8a116d');
  });
});

describe('evm statetest command', () => {
  test("prints one geth-shaped object per case and 'N passed, M failed'; a wrong root fails", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'statetest-'));
    try {
      // The expected root of the transfer, computed once by this runner and confirmed by geth's format:
      // a wrong expected root must fail and report the actual one.
      const entry = (hash: string) => ({
        hash,
        logs: '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347',
        indexes: { data: 0, gas: 0, value: 0 },
      });
      const bad = '0x' + '11'.repeat(32);
      const rejected = {
        ...entry(bad),
        indexes: { data: 0, gas: 1, value: 0 },
        expectException: 'TransactionException.INTRINSIC_GAS_TOO_LOW',
      };
      fs.writeFileSync(
        path.join(dir, 'a.json'),
        JSON.stringify(fixture({ Cancun: [entry(bad), rejected], Shanghai: [entry(bad)] })),
      );
      const out: string[] = [];
      const err: string[] = [];
      const failed = await runStatetestCommand([dir], {}, kestrelEngine, {
        out: (l) => out.push(l),
        err: (l) => err.push(l),
      });
      assert.equal(failed, 1);
      const [first, second] = out.slice(0, 2).map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.deepEqual(Object.keys(first!), ['name', 'pass', 'stateRoot', 'fork', 'error']);
      assert.equal(first!.pass, false);
      assert.match(String(first!.error), /post state root mismatch/);
      assert.equal(second!.pass, true, 'an expected exception passes');
      assert.match(
        String(second!.error),
        /^expected TransactionException.INTRINSIC_GAS_TOO_LOW, got INTRINSIC_GAS_TOO_LOW/,
      );
      assert.equal(out.at(-1), '1 passed, 1 failed');
      assert.deepEqual(err, ['skipped cases of forks the engine does not run: 1 Shanghai']);

      // The same case with the root the run reported now passes.
      const root = String(first!.stateRoot);
      fs.writeFileSync(path.join(dir, 'a.json'), JSON.stringify(fixture({ Cancun: [entry(root)] })));
      const again: string[] = [];
      assert.equal(
        await runStatetestCommand([dir], { fork: 'Cancun', run: '^transfer$' }, kestrelEngine, {
          out: (l) => again.push(l),
          err: () => {},
        }),
        0,
      );
      assert.equal(again.at(-1), '1 passed, 0 failed');
      await assert.rejects(
        runStatetestCommand([dir], { fork: 'Berlin' }, kestrelEngine, { out: () => {}, err: () => {} }),
        /unsupported fork/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
