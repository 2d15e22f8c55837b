// The ABI codec against ethers' AbiCoder (a differential oracle), and its refusals of malformed calldata.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AbiCoder, getBytes, hexlify } from 'ethers';
import { abiDecode, abiEncode, AbiError, encodeRevertReason, parseType, selectorOf, type AbiValue } from './abi.ts';

const coder = AbiCoder.defaultAbiCoder();
const addr = Uint8Array.from({ length: 20 }, (_, i) => i + 1);

/** Our values as ethers takes them (addresses as hex, bytes as hex). */
function toEthers(t: string, v: AbiValue): unknown {
  if (v instanceof Uint8Array) return hexlify(v);
  if (Array.isArray(v)) {
    const inner = parseType(t);
    if (inner.kind === 'tuple') {
      const parts = splitTuple(t);
      return v.map((x, i) => toEthers(parts[i]!, x));
    }
    const elem = t.slice(0, t.lastIndexOf('['));
    return v.map((x) => toEthers(elem, x));
  }
  return v;
}

function splitTuple(t: string): string[] {
  const body = t.slice(1, -1);
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of body) {
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
      continue;
    }
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    cur += ch;
  }
  if (cur !== '') out.push(cur);
  return out;
}

const cases: Array<[string, AbiValue]> = [
  ['uint256', 123n],
  ['int64', -5n],
  ['bool', true],
  ['address', addr],
  ['string', 'hello, κόσμε'],
  ['bytes', Uint8Array.of(1, 2, 3)],
  ['bytes32', new Uint8Array(32).fill(7)],
  ['(string,string,string,string,string)', ['m', '', 'w', 's', 'd']],
  ['(uint256,uint256,uint256)', [1n, 2n, 3n]],
  [
    '(string,uint256)[]',
    [
      ['atest', 10n],
      ['b', 0n],
    ],
  ],
  ['string[]', ['a', 'bb', '']],
  ['(bytes,uint64,uint64,bool,bool)', [new Uint8Array(0), 0n, 10n, true, false]],
  ['((string,uint256,uint8)[],(bytes,uint64))', [[['atest', 5n, 18n]], [Uint8Array.of(9), 2n]]],
];

test('encodes as ethers does, and decodes what ethers encodes', () => {
  for (const [t, v] of cases) {
    const types = [parseType(t), parseType('uint8')];
    const ours = abiEncode(types, [v, 9n]);
    const theirs = getBytes(coder.encode([t, 'uint8'], [toEthers(t, v), 9]));
    assert.equal(hexlify(ours), hexlify(theirs), t);
    assert.deepEqual(abiDecode(types, theirs), [v, 9n], t);
  }
});

test('selectors and the Error(string) revert match Solidity', () => {
  const sel = selectorOf('transfer', [parseType('address'), parseType('uint256')]);
  assert.equal(hexlify(sel), '0xa9059cbb');
  assert.equal(hexlify(encodeRevertReason('no')).slice(0, 10), '0x08c379a0');
});

test('malformed calldata is refused with an AbiError', () => {
  const s = [parseType('string')];
  assert.throws(() => abiDecode(s, new Uint8Array(10)), AbiError);
  // An offset past the end, a length past the end, an address with high bits, a bool of 2.
  const off = new Uint8Array(32);
  off[31] = 0xff;
  assert.throws(() => abiDecode(s, off), AbiError);
  const len = new Uint8Array(64);
  len[31] = 32;
  len[62] = 0xff;
  assert.throws(() => abiDecode(s, len), AbiError);
  assert.throws(() => abiDecode([parseType('address')], new Uint8Array(32).fill(1)), AbiError);
  const two = new Uint8Array(32);
  two[31] = 2;
  assert.throws(() => abiDecode([parseType('bool')], two), AbiError);
  const huge = new Uint8Array(64);
  huge[31] = 32;
  huge.fill(0xff, 32, 64);
  assert.throws(() => abiDecode([parseType('uint256[]')], huge), AbiError);
  assert.throws(() => abiEncode([parseType('uint8')], [256n]), AbiError);
});
