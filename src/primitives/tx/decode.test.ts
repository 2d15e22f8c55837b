// Kestrel's transaction decoder/encoder against @ethereumjs/tx (the oracle it replaced): random and edge-case txs
// of every type round-trip to the same hash, signing hash, sender and fields; malformed bytes are refused where
// ethereumjs refused them, and the places where Kestrel follows geth instead are listed and checked as such.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { createTx, createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import secp256k1 from 'secp256k1';
import { prng } from '../../../test/helpers/random.ts';
import { keccak256 } from '../keccak.ts';
import { decodeTransaction, signingHashOf, versionedHash } from './decode.ts';
import { encodeTx, txSigningHash } from './encode.ts';
import { SECP256K1_N, TxDecodeError, type Transaction } from './types.ts';

const CHAIN = 9000;
// A fake KZG: ethereumjs only asks that one be configured to decode a blob tx's plain form.
const common = createCustomCommon({ chainId: CHAIN }, Mainnet, {
  hardfork: Hardfork.Prague,
  customCrypto: { kzg: {} as never },
});
const homestead = createCustomCommon({ chainId: CHAIN }, Mainnet, { hardfork: Hardfork.Homestead });

// Seeded, so a failure reproduces.
const rnd = prng(27);
const int = (n: number) => Math.floor(rnd() * n);
const bytes = (n: number) => Uint8Array.from({ length: n }, () => (rnd() < 0.3 ? 0 : int(256)));
/** A random integer of up to `bits` bits, often an edge (0, 1, the maximum). */
function big(bits: number): bigint {
  const r = rnd();
  if (r < 0.1) return 0n;
  if (r < 0.15) return 1n;
  if (r < 0.2) return (1n << BigInt(bits)) - 1n;
  let v = 0n;
  const n = int(bits) + 1;
  for (let i = 0; i < n; i++) v = (v << 1n) | BigInt(int(2));
  return v;
}
const key = () => {
  for (;;) {
    const k = randomBytes(32);
    if (secp256k1.privateKeyVerify(k)) return k;
  }
};

function accessList(): [Uint8Array, Uint8Array[]][] {
  return Array.from({ length: int(4) }, () => [bytes(20), Array.from({ length: int(4) }, () => bytes(32))]);
}

/** A random signed tx of `type` (type 0: EIP-155 unless `unprotected`). */
function randomTx(type: number, unprotected = false): TypedTransaction {
  const tip = big(64);
  const base = {
    type,
    nonce: big(63) % ((1n << 64n) - 1n),
    gasLimit: big(64),
    value: big(256),
    data: bytes(int(3) === 0 ? 0 : int(300)),
    to: type >= 3 || rnd() < 0.8 ? bytes(20) : undefined,
  };
  const fees = type >= 2 ? { maxPriorityFeePerGas: tip, maxFeePerGas: tip + big(64) } : { gasPrice: big(128) };
  const extra: Record<string, unknown> = {};
  if (type >= 1) extra.accessList = accessList();
  if (type === 3) {
    extra.maxFeePerBlobGas = big(128);
    extra.blobVersionedHashes = Array.from({ length: 1 + int(6) }, () => {
      const h = bytes(32);
      h[0] = 1;
      return h;
    });
  }
  if (type === 4) {
    extra.authorizationList = Array.from({ length: 1 + int(3) }, () => [
      bigBytes(big(256)),
      bytes(20),
      bigBytes(big(63)),
      bigBytes(BigInt(int(2))),
      bigBytes(big(256)),
      bigBytes(big(256)),
    ]);
  }
  const tx = createTx({ ...base, ...fees, ...extra } as never, { common: unprotected ? homestead : common });
  return tx.sign(key());
}

function bigBytes(v: bigint): Uint8Array {
  return v === 0n
    ? new Uint8Array(0)
    : Uint8Array.from(Buffer.from(v.toString(16).padStart(Math.ceil(v.toString(16).length / 2) * 2, '0'), 'hex'));
}

const hex = (b: Uint8Array | undefined) => (b === undefined ? undefined : Buffer.from(b).toString('hex'));

/** The fields of an ethereumjs tx in Kestrel's shape (hex for bytes), to compare with ours. */
function oracleFields(e: TypedTransaction): Record<string, unknown> {
  const t = e as unknown as Record<string, unknown>;
  const fee = (t.maxFeePerGas ?? t.gasPrice) as bigint;
  const tip = (t.maxPriorityFeePerGas ?? t.gasPrice) as bigint;
  const legacyChain = e.type === 0 && e.v! >= 35n ? (e.v! - 35n) / 2n : undefined;
  return {
    type: e.type,
    chainId: e.type === 0 ? legacyChain : e.common.chainId(),
    nonce: e.nonce,
    gasPrice: e.type >= 2 ? fee : (t.gasPrice as bigint),
    maxFeePerGas: fee,
    maxPriorityFeePerGas: tip,
    gasLimit: e.gasLimit,
    to: hex(e.to?.bytes),
    value: e.value,
    data: hex(e.data),
    accessList: ((t.accessList ?? []) as [Uint8Array, Uint8Array[]][]).map(([a, k]) => [hex(a), k.map(hex)]),
    maxFeePerBlobGas: (t.maxFeePerBlobGas as bigint | undefined) ?? 0n,
    blobVersionedHashes: ((t.blobVersionedHashes ?? []) as string[]).map((h) => h.slice(2)),
    authorizationList: ((t.authorizationList ?? []) as Uint8Array[][]).map((a) => a.map((b) => hex(b))),
    v: e.v,
    r: e.r,
    s: e.s,
  };
}

function ourFields(t: Transaction): Record<string, unknown> {
  const q = (v: bigint) => hex(bigBytes(v));
  return {
    type: t.type,
    chainId: t.chainId,
    nonce: t.nonce,
    gasPrice: t.gasPrice,
    maxFeePerGas: t.maxFeePerGas,
    maxPriorityFeePerGas: t.maxPriorityFeePerGas,
    gasLimit: t.gasLimit,
    to: hex(t.to),
    value: t.value,
    data: hex(t.data),
    accessList: t.accessList.map((a) => [hex(a.address), a.storageKeys.map(hex)]),
    maxFeePerBlobGas: t.maxFeePerBlobGas,
    blobVersionedHashes: t.blobVersionedHashes.map(hex),
    authorizationList: t.authorizationList.map((a) => [
      q(a.chainId),
      hex(a.address),
      q(a.nonce),
      q(a.yParity),
      q(a.r),
      q(a.s),
    ]),
    v: t.v,
    r: t.r,
    s: t.s,
  };
}

/** The sender our decoded value gives (native recovery, as the node's workers run it). */
function ourSender(raw: Uint8Array): Uint8Array {
  const d = decodeTransaction(raw);
  const { tx } = d;
  const recid =
    tx.type === 0 ? Number(tx.chainId === undefined ? tx.v - 27n : tx.v - 35n - tx.chainId * 2n) : Number(tx.v);
  const sig = Buffer.from(tx.r.toString(16).padStart(64, '0') + tx.s.toString(16).padStart(64, '0'), 'hex');
  return keccak256(secp256k1.ecdsaRecover(sig, recid, signingHashOf(d), false).slice(1)).subarray(12);
}

const TYPES = [0, 1, 2, 3, 4];

describe('transaction decoder against @ethereumjs/tx', () => {
  test('random txs of every type: same hash, signing hash, sender, fields and encoding', () => {
    let n = 0;
    for (let i = 0; i < 40; i++) {
      for (const type of TYPES) {
        const e = randomTx(type);
        const raw = e.serialize();
        const d = decodeTransaction(raw);
        assert.equal(hex(d.hash), hex(e.hash()), `hash, type ${type}`);
        assert.deepEqual(ourFields(d.tx), oracleFields(e), `fields, type ${type}`);
        assert.equal(hex(signingHashOf(d)), hex(e.getHashedMessageToSign()));
        assert.equal(hex(txSigningHash(d.tx)), hex(e.getHashedMessageToSign()));
        assert.equal(hex(encodeTx(d.tx)), hex(raw));
        assert.equal(hex(d.encoded), hex(raw));
        assert.equal(hex(ourSender(raw)), hex(e.getSenderAddress().bytes), `sender, type ${type}`);
        n++;
      }
    }
    // Legacy without EIP-155 (v = 27/28): no chain id.
    for (let i = 0; i < 20; i++) {
      const e = randomTx(0, true);
      const d = decodeTransaction(e.serialize());
      assert.equal(d.tx.chainId, undefined);
      assert.deepEqual(ourFields(d.tx), oracleFields(e));
      assert.equal(hex(ourSender(e.serialize())), hex(e.getSenderAddress().bytes));
      n++;
    }
    assert.equal(n, 220);
  });

  test('edge values: zero and maximal integers, empty and long data, creations', () => {
    const max256 = (1n << 256n) - 1n;
    const cases: TypedTransaction[] = [
      createTx({ type: 0, nonce: (1n << 64n) - 2n, gasLimit: 0n, gasPrice: 0n, value: max256 }, { common }),
      createTx(
        {
          type: 2,
          nonce: 0n,
          gasLimit: 1n,
          maxFeePerGas: 1n << 190n,
          maxPriorityFeePerGas: 1n << 190n,
          data: new Uint8Array(70_000),
          to: new Uint8Array(20).fill(9),
        },
        { common },
      ),
      createTx(
        {
          type: 1,
          gasLimit: (1n << 64n) - 1n,
          gasPrice: 1n,
          to: new Uint8Array(20),
          accessList: [[new Uint8Array(20), []]],
        },
        { common },
      ),
    ].map((t) => t.sign(key()));
    for (const e of cases) {
      const d = decodeTransaction(e.serialize());
      assert.deepEqual(ourFields(d.tx), oracleFields(e));
      assert.equal(hex(d.hash), hex(e.hash()));
    }
  });

  /** Whether ethereumjs (the decoder the node used) and ours accept `raw`; ours must refuse with a TxDecodeError. */
  function both(raw: Uint8Array): { theirs: boolean; ours: boolean; message?: string } {
    let theirs = true;
    try {
      createTxFromRLP(raw, { common });
    } catch {
      theirs = false;
    }
    try {
      decodeTransaction(raw);
      return { theirs, ours: true };
    } catch (e) {
      assert.ok(e instanceof TxDecodeError, `a TxDecodeError, not ${String(e)}`);
      assert.ok(e.message.length > 0);
      return { theirs, ours: false, message: e.message };
    }
  }

  /** A typed or legacy tx's fields, edited, encoded again. */
  function edit(e: TypedTransaction, f: (fields: Array<Uint8Array | unknown[]>) => void): Uint8Array {
    const raw = e.serialize();
    const body = e.type === 0 ? raw : raw.subarray(1);
    const fields = RLP.decode(body) as Array<Uint8Array | unknown[]>;
    f(fields);
    const out = RLP.encode(fields as never);
    return e.type === 0 ? out : Uint8Array.from([e.type, ...out]);
  }

  test('malformed bytes are refused wherever ethereumjs refused them, with geth messages', () => {
    const seen = new Map<string, number>();
    const refuse = (raw: Uint8Array, want?: RegExp, atRecovery = false) => {
      const r = both(raw);
      // ethereumjs checked a legacy tx's high s only when recovering the sender (admission did right after).
      if (atRecovery && r.theirs) {
        assert.throws(() => createTxFromRLP(raw, { common }).getSenderPublicKey(), /s-values greater than/);
        r.theirs = false;
      }
      assert.equal(
        r.theirs,
        false,
        `ethereumjs refuses it too: ${r.message ?? 'ours accepts'} ${hex(raw)!.slice(0, 80)}`,
      );
      assert.equal(r.ours, false, 'ours refuses it');
      if (want) assert.match(r.message!, want);
      seen.set(r.message!.replace(/\d+/g, 'N'), (seen.get(r.message!) ?? 0) + 1);
    };
    for (let i = 0; i < 30; i++) {
      for (const type of TYPES) {
        const e = randomTx(type);
        const raw = e.serialize();
        const nFields = (RLP.decode(e.type === 0 ? raw : raw.subarray(1)) as unknown[]).length;
        // Truncated anywhere, and one byte too many.
        refuse(raw.subarray(0, 1 + int(raw.length - 1)), /^(rlp: |typed transaction too short)/);
        refuse(Uint8Array.from([...raw, int(256)]), /^rlp: /);
        // A field missing or one too many.
        refuse(
          edit(e, (f) => f.splice(int(nFields), 1)),
          /^rlp: too few elements for types\.\w+$/,
        );
        refuse(
          edit(e, (f) => f.push(new Uint8Array(0))),
          /^rlp: input list has too many elements/,
        );
        // A leading zero in an integer field other than the chain id (nonce, gas, value, r, s).
        const intFields =
          type === 0 ? [0, 2, 4, 7, 8] : [1, type === 1 ? 3 : 4, type === 1 ? 5 : 6, nFields - 2, nFields - 1];
        const at = intFields[int(intFields.length)]!;
        refuse(
          edit(e, (f) => (f[at] = Uint8Array.from([0, ...(f[at] as Uint8Array)]))),
          /^rlp: non-canonical integer \(leading zero bytes\)/,
        );
        // Oversize values: a 33-byte value, a 9-byte nonce.
        const valueAt = type === 0 ? 4 : type === 1 ? 5 : 6;
        refuse(
          edit(e, (f) => (f[valueAt] = Uint8Array.from([1, ...new Uint8Array(32)]))),
          /value too large for uint256/,
        );
        refuse(
          edit(e, (f) => (f[type === 0 ? 0 : 1] = Uint8Array.from([1, ...new Uint8Array(8)]))),
          /input string too long for uint64/,
        );
        // A 19- or 21-byte recipient (an empty one is a creation, except for blob and set-code txs).
        const toAt = type === 0 ? 3 : type === 1 ? 4 : 5;
        refuse(
          edit(e, (f) => (f[toAt] = bytes(rnd() < 0.5 ? 19 : 21))),
          /for (\*)?common\.Address/,
        );
        // A list where a byte string belongs, and the reverse.
        refuse(
          edit(e, (f) => (f[type === 0 ? 0 : 1] = [])),
          /expected input string or byte/,
        );
        if (type >= 1)
          refuse(
            edit(e, (f) => (f[valueAt + 2] = new Uint8Array(1).fill(5))),
            /expected input list/,
          );
        // A high s (EIP-2), and a y parity / v out of range.
        refuse(
          edit(e, (f) => {
            const s = BigInt('0x' + (hex(f[nFields - 1] as Uint8Array) || '0'));
            f[nFields - 1] = bigBytes(SECP256K1_N - s);
          }),
          /^invalid transaction v, r, s values$/,
          type === 0,
        );
        refuse(
          edit(e, (f) => (f[nFields - 3] = Uint8Array.of(type === 0 ? 29 : 2))),
          /^invalid transaction v, r, s values$/,
        );
      }
    }
    // Bad type bytes and empty input.
    for (const b of [0x05, 0x06, 0x7f, 0x00]) refuse(Uint8Array.of(b, 0xc0), /^transaction type not supported$/);
    refuse(new Uint8Array(0), /^typed transaction too short$/);
    refuse(Uint8Array.of(2), /^typed transaction too short$/);
    // A non-list body.
    refuse(Uint8Array.of(2, 0x80), /^rlp: expected input list for types.DynamicFeeTx$/);
    // A set-code tx with no authorizations, a blob tx with no hashes or a hash of another version, a creation.
    const setCode = randomTx(4);
    refuse(
      edit(setCode, (f) => (f[9] = [])),
      /^EIP-7702 transaction with empty auth list$/,
    );
    const blob = randomTx(3);
    refuse(
      edit(blob, (f) => (f[10] = [])),
      /^blobless blob transaction$/,
    );
    refuse(
      edit(blob, (f) => ((f[10] as Uint8Array[])[0] = new Uint8Array(32).fill(2))),
      /hash version mismatch/,
    );
    refuse(
      edit(blob, (f) => (f[5] = new Uint8Array(0))),
      /too short for common.Address/,
    );
    refuse(
      edit(setCode, (f) => (f[5] = new Uint8Array(0))),
      /too short for common.Address/,
    );
    // A tip above the fee cap, a nonce at 2^64-1.
    const dyn = randomTx(2);
    refuse(
      edit(dyn, (f) => ((f[2] = bigBytes(10n)), (f[3] = bigBytes(9n)))),
      /^max priority fee per gas higher than max fee per gas$/,
    );
    refuse(
      edit(dyn, (f) => (f[1] = bigBytes((1n << 64n) - 1n))),
      /^nonce has max value$/,
    );
    // An authorization with five fields, or a y parity of two bytes.
    refuse(
      edit(setCode, (f) => (f[9] as unknown[][])[0]!.pop()),
      /too few elements for types.SetCodeAuthorization/,
    );
    refuse(
      edit(setCode, (f) => ((f[9] as unknown[][])[0]![3] = Uint8Array.of(1, 0))),
      /input string too long for uint8/,
    );
    assert.ok(seen.size >= 15, `distinct messages: ${[...seen.keys()].join(' | ')}`);
  });

  test('where Kestrel follows geth instead of ethereumjs', () => {
    // 1. A typed tx's chain id with a leading zero: ethereumjs took it (and re-encoded), geth's decoder refuses it.
    const e = randomTx(2);
    const padded = edit(e, (f) => (f[0] = Uint8Array.from([0, ...(f[0] as Uint8Array)])));
    assert.deepEqual(both(padded), {
      theirs: true,
      ours: false,
      message:
        'rlp: non-canonical integer (leading zero bytes) for *big.Int, decoding into (types.DynamicFeeTx).ChainID',
    });
    // 2. A chain id other than the node's decodes (ethereumjs refused it against its Common); admission refuses it
    //    with geth's "invalid chain id for signer" (src/app/evm/validate.ts).
    const other = createTx(
      { type: 2, gasLimit: 21000n, maxFeePerGas: 1n },
      { common: createCustomCommon({ chainId: 1 }, Mainnet, { hardfork: Hardfork.Prague }) },
    ).sign(key());
    assert.equal(decodeTransaction(other.serialize()).tx.chainId, 1n);
    // 3. gasLimit × fee cap above 2^256: ethereumjs refused it on decode; geth has no such rule (the balance check
    //    refuses it at admission: "insufficient funds for gas * price + value").
    const costly = edit(
      randomTx(2),
      (f) => ((f[2] = bigBytes(1n)), (f[3] = bigBytes(1n << 250n)), (f[4] = bigBytes((1n << 64n) - 1n))),
    );
    assert.equal(both(costly).theirs, false);
    assert.equal(both(costly).ours, true);
    // 4. A legacy v of 35 or 36 (EIP-155 with chain id 0): ethereumjs refused it, geth decodes it (chain id 0) and
    //    admission refuses the chain id.
    const zero = edit(randomTx(0), (f) => (f[6] = Uint8Array.of(35)));
    assert.deepEqual([both(zero).theirs, both(zero).ours], [false, true]);
    assert.equal(decodeTransaction(zero).tx.chainId, 0n);
    // 5. Fork rules ethereumjs applied on decode (EIP-3860's initcode cap, EIP-7825's gas cap, the blob count) are
    //    admission's in Kestrel, as in geth's pool: the decoder knows no fork.
  });

  test('a blob tx in its network forms (EIP-4844 and EIP-7594): the plain tx, its hash and the sidecar', () => {
    const commitments = [randomBytes(48), randomBytes(48)].map((b) => new Uint8Array(b));
    const hashes = commitments.map(versionedHash);
    const e = createTx(
      {
        type: 3,
        to: bytes(20),
        gasLimit: 100_000n,
        maxFeePerGas: 10n,
        maxFeePerBlobGas: 1n,
        blobVersionedHashes: hashes,
      },
      { common },
    ).sign(key());
    const plain = e.serialize();
    const inner = RLP.decode(plain.subarray(1)) as unknown[];
    const blobs = [new Uint8Array(131072).fill(1), new Uint8Array(131072).fill(2)];
    const proofs = [new Uint8Array(48), new Uint8Array(48)];
    const v0 = Uint8Array.from([3, ...RLP.encode([inner, blobs, commitments, proofs] as never)]);
    const d0 = decodeTransaction(v0);
    assert.equal(hex(d0.hash), hex(e.hash()));
    assert.equal(hex(d0.encoded), hex(plain));
    assert.equal(d0.sidecar?.version, 0);
    assert.equal(d0.sidecar?.blobs.length, 2);
    const cellProofs = Array.from({ length: 256 }, () => new Uint8Array(48));
    const v1 = Uint8Array.from([3, ...RLP.encode([inner, Uint8Array.of(1), blobs, commitments, cellProofs] as never)]);
    const d1 = decodeTransaction(v1);
    assert.equal(hex(d1.hash), hex(e.hash()));
    assert.equal(d1.sidecar?.version, 1);
    // Counts, sizes and commitments that do not match the tx are refused.
    const bad = (items: unknown[], want: RegExp) =>
      assert.throws(() => decodeTransaction(Uint8Array.from([3, ...RLP.encode(items as never)])), want);
    bad([inner, blobs.slice(1), commitments, proofs], /invalid number of 1 blobs compared to 2 blob hashes/);
    bad([inner, blobs, commitments, proofs.slice(1)], /invalid number of 1 blob proofs/);
    bad([inner, blobs, [commitments[1], commitments[0]], proofs], /blob 0: computed hash/);
    bad([inner, [blobs[0], new Uint8Array(10)], commitments, proofs], /too short for kzg4844.Blob/);
    bad([inner, Uint8Array.of(2), blobs, commitments, proofs], /unsupported blob sidecar version 2/);
  });
});
