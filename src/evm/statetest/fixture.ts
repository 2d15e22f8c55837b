// The state-test JSON format (ethereum/tests GeneralStateTests and execution-spec-tests `state_test`), decoded
// once into typed values: one StateTest per test name, one StateTestCase per post entry of a fork.
import { secp256k1 } from '../../primitives/secp256k1.ts';
import { bytesToBigint, hexToBytes } from '../../primitives/bytes.ts';
import { keccak256 } from '../../primitives/keccak.ts';
import { EMPTY_CODE_HASH } from '../../primitives/hash.ts';
import type { AccessListItem, Address, Authorization, Tx } from '../types.ts';

/** A structural problem in a fixture file (missing or malformed field). */
export class FixtureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FixtureError';
  }
}

/** One pre-state account. */
export interface PreAccount {
  nonce: bigint;
  balance: bigint;
  code: Uint8Array;
  codeHash: Uint8Array;
  /** Non-zero slots only. */
  storage: Map<bigint, bigint>;
}

/** The block context of a test, before fork-dependent values (the blob base fee) are derived. */
export interface TestEnv {
  coinbase: Address;
  gasLimit: bigint;
  number: bigint;
  timestamp: bigint;
  /** geth's default when absent: 0x0a. */
  baseFee: bigint;
  prevRandao: bigint;
  excessBlobGas: bigint;
  chainId: bigint;
}

/** One case: the transaction chosen by `indexes`, run under `fork`, with what must come out. */
export interface StateTestCase {
  /** `test` or `test_d{data}g{gas}v{value}` when the fork has more than one case. */
  name: string;
  test: StateTest;
  fork: string;
  /** Position in `post[fork]`. */
  index: number;
  indexes: { data: number; gas: number; value: number };
  /** The engine's transaction, or why geth's runner could not build it (the case is then a rejected tx). */
  tx: { ok: true; value: Tx } | { ok: false; error: string };
  txBytes: Uint8Array;
  expectedRoot: Uint8Array;
  expectedLogsHash: Uint8Array;
  expectException: string | undefined;
  /** The full expected post-state when the fixture carries it (EEST does), for diagnostics. */
  expectedState: unknown;
}

/** One named test of a fixture file. */
export interface StateTest {
  file: string;
  name: string;
  env: TestEnv;
  pre: Map<Address, PreAccount>;
  cases: StateTestCase[];
}

type Json = Record<string, unknown>;

function field(obj: Json, key: string, where: string): unknown {
  const v = obj[key];
  if (v === undefined) throw new FixtureError(`${where}: missing field '${key}'`);
  return v;
}

function str(obj: Json, key: string, where: string): string {
  const v = field(obj, key, where);
  if (typeof v !== 'string') throw new FixtureError(`${where}: field '${key}' is not a string`);
  return v;
}

/** Parses a JSON quantity: 0x-hex (``0x`` is zero) or decimal. Undefined when malformed (e.g. `0x:bigint ...`). */
export function parseQuantity(text: string): bigint | undefined {
  if (text === '0x' || text === '') return 0n;
  if (/^0x[0-9a-fA-F]+$/.test(text) || /^[0-9]+$/.test(text)) return BigInt(text);
  return undefined;
}

function quantity(obj: Json, key: string, where: string): bigint {
  const text = str(obj, key, where);
  const v = parseQuantity(text);
  if (v === undefined) throw new FixtureError(`${where}: field '${key}' is not a quantity: ${text.slice(0, 40)}`);
  return v;
}

function optionalQuantity(obj: Json, key: string, where: string): bigint | undefined {
  return obj[key] === undefined ? undefined : quantity(obj, key, where);
}

/** Parses 0x-hex bytes. */
export function parseBytes(text: string, where: string): Uint8Array {
  const hex = text.startsWith('0x') ? text.slice(2) : text;
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex))
    throw new FixtureError(`${where}: not hex bytes: ${text.slice(0, 40)}`);
  return hexToBytes(hex);
}

function address(text: string, where: string): Address {
  if (!/^(0x)?[0-9a-fA-F]{40}$/.test(text)) throw new FixtureError(`${where}: not an address: ${text}`);
  return BigInt(text.startsWith('0x') ? text : '0x' + text);
}

function hash32(text: string, where: string): Uint8Array {
  const b = parseBytes(text, where);
  if (b.length !== 32) throw new FixtureError(`${where}: not a 32-byte hash: ${text}`);
  return b;
}

function parsePre(raw: Json, where: string): Map<Address, PreAccount> {
  const pre = new Map<Address, PreAccount>();
  for (const [addr, value] of Object.entries(raw)) {
    const w = `${where}.pre[${addr}]`;
    const acc = value as Json;
    const code = parseBytes(str(acc, 'code', w), w);
    const storage = new Map<bigint, bigint>();
    for (const [k, v] of Object.entries((acc.storage ?? {}) as Record<string, string>)) {
      const slot = parseQuantity(k);
      const val = parseQuantity(v);
      if (slot === undefined || val === undefined) throw new FixtureError(`${w}: bad storage entry ${k}: ${v}`);
      if (val !== 0n) storage.set(slot, val);
    }
    pre.set(address(addr, w), {
      nonce: quantity(acc, 'nonce', w),
      balance: quantity(acc, 'balance', w),
      code,
      codeHash: code.length === 0 ? EMPTY_CODE_HASH : keccak256(code),
      storage,
    });
  }
  return pre;
}

function parseEnv(raw: Json, config: Json | undefined, where: string): TestEnv {
  const w = `${where}.env`;
  const chainId = config?.chainid === undefined ? 1n : parseQuantity(String(config.chainid));
  if (chainId === undefined) throw new FixtureError(`${where}.config: bad chainid`);
  return {
    coinbase: address(str(raw, 'currentCoinbase', w), w),
    gasLimit: quantity(raw, 'currentGasLimit', w),
    number: quantity(raw, 'currentNumber', w),
    timestamp: quantity(raw, 'currentTimestamp', w),
    baseFee: optionalQuantity(raw, 'currentBaseFee', w) ?? 10n,
    prevRandao: optionalQuantity(raw, 'currentRandom', w) ?? optionalQuantity(raw, 'currentDifficulty', w) ?? 0n,
    excessBlobGas: optionalQuantity(raw, 'currentExcessBlobGas', w) ?? 0n,
    chainId,
  };
}

/** The address of a secp256k1 secret key: the last 20 bytes of keccak(uncompressed public key without its prefix). */
export function addressOfKey(secretKey: Uint8Array): Address {
  if (!secp256k1().privateKeyVerify(secretKey)) throw new FixtureError('invalid secretKey');
  const pub = secp256k1().publicKeyCreate(secretKey, false);
  return bytesToBigint(keccak256(pub.subarray(1)).subarray(12));
}

function parseAccessList(raw: unknown, where: string): AccessListItem[] {
  if (!Array.isArray(raw)) throw new FixtureError(`${where}: access list is not an array`);
  return raw.map((item: Json) => ({
    address: address(str(item, 'address', where), where),
    storageKeys: ((item.storageKeys ?? []) as string[]).map((k) => bytesToBigint(hash32(k, where))),
  }));
}

function parseAuthorizations(raw: unknown, where: string): Authorization[] {
  if (!Array.isArray(raw)) throw new FixtureError(`${where}: authorizationList is not an array`);
  return raw.map((a: Json) => ({
    chainId: quantity(a, 'chainId', where),
    address: address(str(a, 'address', where), where),
    nonce: quantity(a, 'nonce', where),
    yParity: a.v !== undefined ? quantity(a, 'v', where) : quantity(a, 'yParity', where),
    r: quantity(a, 'r', where),
    s: quantity(a, 's', where),
  }));
}

const U256_MAX = (1n << 256n) - 1n;

/**
 * Builds the transaction of one case as geth's runner does (`toMessage`): the type follows from which fields are
 * present (an `authorizationList`, even empty, makes a set-code tx; `blobVersionedHashes` a blob tx), legacy
 * gas prices fill both 1559 fee fields, and a value that is not a 256-bit quantity makes the case a rejected tx.
 */
function buildTx(
  raw: Json,
  from: Address,
  idx: { data: number; gas: number; value: number },
  where: string,
): StateTestCase['tx'] {
  const data = field(raw, 'data', where) as string[];
  const gas = field(raw, 'gasLimit', where) as string[];
  const values = field(raw, 'value', where) as string[];
  if (idx.data >= data.length) return { ok: false, error: `tx data index ${idx.data} out of bounds` };
  if (idx.gas >= gas.length) return { ok: false, error: `tx gas limit index ${idx.gas} out of bounds` };
  if (idx.value >= values.length) return { ok: false, error: `tx value index ${idx.value} out of bounds` };
  const value = parseQuantity(values[idx.value]!);
  if (value === undefined || value > U256_MAX)
    return { ok: false, error: `invalid tx value "${values[idx.value]!.slice(0, 80)}"` };
  const gasLimit = parseQuantity(gas[idx.gas]!);
  if (gasLimit === undefined) throw new FixtureError(`${where}: bad gasLimit ${gas[idx.gas]}`);
  const toText = str(raw, 'to', where);
  const accessLists = raw.accessLists as unknown[] | undefined;
  const accessListRaw = accessLists?.[idx.data];
  const accessList = accessListRaw === undefined || accessListRaw === null ? [] : parseAccessList(accessListRaw, where);
  const gasPrice = optionalQuantity(raw, 'gasPrice', where);
  const maxFee = optionalQuantity(raw, 'maxFeePerGas', where);
  const maxTip = optionalQuantity(raw, 'maxPriorityFeePerGas', where);
  if (gasPrice === undefined && maxFee === undefined) return { ok: false, error: 'no gas price provided' };
  for (const [k, v] of [
    ['gasPrice', gasPrice],
    ['maxFeePerGas', maxFee],
    ['maxPriorityFeePerGas', maxTip],
  ] as const) {
    if (v !== undefined && v > U256_MAX) return { ok: false, error: `${k} exceeds 256 bits` };
  }
  const hasAuth = raw.authorizationList !== undefined && raw.authorizationList !== null;
  const hasBlobs = raw.blobVersionedHashes !== undefined && raw.blobVersionedHashes !== null;
  const type: Tx['type'] = hasAuth ? 4 : hasBlobs ? 3 : maxFee !== undefined ? 2 : accessListRaw ? 1 : 0;
  const legacy = type === 0 || type === 1;
  const feeCap = maxFee ?? gasPrice ?? 0n;
  return {
    ok: true,
    value: {
      type,
      from,
      to: toText === '' ? undefined : address(toText, where),
      nonce: quantity(raw, 'nonce', where),
      gasLimit,
      value,
      data: parseBytes(data[idx.data]!, where),
      gasPrice: legacy ? (gasPrice ?? feeCap) : 0n,
      maxFeePerGas: feeCap,
      maxPriorityFeePerGas: maxTip ?? feeCap,
      accessList,
      maxFeePerBlobGas: optionalQuantity(raw, 'maxFeePerBlobGas', where) ?? 0n,
      blobVersionedHashes: hasBlobs ? (raw.blobVersionedHashes as string[]).map((h) => hash32(h, where)) : [],
      authorizationList: hasAuth ? parseAuthorizations(raw.authorizationList, where) : [],
    },
  };
}

function sender(raw: Json, where: string): Address {
  if (typeof raw.sender === 'string' && raw.sender !== '') return address(raw.sender, where);
  return addressOfKey(parseBytes(str(raw, 'secretKey', where), where));
}

/** Decodes a fixture file (an object of named tests) into tests and their cases, in file order. */
export function parseStateTestFile(json: unknown, file: string): StateTest[] {
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw new FixtureError(`${file}: not a state-test object`);
  const tests: StateTest[] = [];
  for (const [name, value] of Object.entries(json as Json)) {
    const where = `${file}:${name}`;
    const raw = value as Json;
    const txRaw = field(raw, 'transaction', where) as Json;
    const post = field(raw, 'post', where) as Record<string, Json[]>;
    const test: StateTest = {
      file,
      name,
      env: parseEnv(field(raw, 'env', where) as Json, raw.config as Json | undefined, where),
      pre: parsePre(field(raw, 'pre', where) as Json, where),
      cases: [],
    };
    const from = sender(txRaw, where);
    for (const [fork, entries] of Object.entries(post)) {
      entries.forEach((entry, index) => {
        const w = `${where}.post.${fork}[${index}]`;
        const ix = field(entry, 'indexes', w) as Record<string, number>;
        const indexes = { data: ix.data ?? 0, gas: ix.gas ?? 0, value: ix.value ?? 0 };
        const expectException = typeof entry.expectException === 'string' ? entry.expectException : undefined;
        test.cases.push({
          name: entries.length === 1 ? name : `${name}_d${indexes.data}g${indexes.gas}v${indexes.value}`,
          test,
          fork,
          index,
          indexes,
          tx: buildTx(txRaw, from, indexes, w),
          txBytes: entry.txbytes === undefined ? new Uint8Array(0) : parseBytes(String(entry.txbytes), w),
          expectedRoot: hash32(str(entry, 'hash', w), w),
          expectedLogsHash: hash32(str(entry, 'logs', w), w),
          expectException,
          expectedState: entry.state,
        });
      });
    }
    tests.push(test);
  }
  return tests;
}
