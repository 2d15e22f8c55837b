import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { concatBytes, hexToBytes, padLeft, bigintToBytes } from '../../primitives/hex.ts';
import { decodeRevertReason } from './revert.ts';

const word = (n: bigint) => padLeft(bigintToBytes(n), 32);

function errorString(reason: string): Uint8Array {
  const bytes = new TextEncoder().encode(reason);
  const padded = new Uint8Array(Math.ceil(bytes.length / 32) * 32);
  padded.set(bytes);
  return concatBytes(hexToBytes('0x08c379a0'), word(32n), word(BigInt(bytes.length)), padded);
}

const panic = (code: bigint) => concatBytes(hexToBytes('0x4e487b71'), word(code));

describe('decodeRevertReason', () => {
  test('Error(string)', () => {
    assert.equal(decodeRevertReason(errorString('not enough')), 'not enough');
    assert.equal(decodeRevertReason(errorString('')), '');
    const long = 'x'.repeat(70);
    assert.equal(decodeRevertReason(errorString(long)), long);
    assert.equal(decodeRevertReason(errorString('héllo ✓')), 'héllo ✓');
  });

  test('solc-encoded Error(string) from a real revert', () => {
    // require(false, "boom") as emitted by solc
    const data = hexToBytes(
      '0x08c379a0' +
        '0000000000000000000000000000000000000000000000000000000000000020' +
        '0000000000000000000000000000000000000000000000000000000000000004' +
        '626f6f6d00000000000000000000000000000000000000000000000000000000',
    );
    assert.equal(decodeRevertReason(data), 'boom');
  });

  test('Panic(uint256)', () => {
    assert.equal(decodeRevertReason(panic(0x11n)), 'arithmetic underflow or overflow');
    assert.equal(decodeRevertReason(panic(0x12n)), 'division or modulo by zero');
    assert.equal(decodeRevertReason(panic(0x01n)), 'assert(false)');
    assert.equal(decodeRevertReason(panic(0x32n)), 'out-of-bounds access of an array or bytesN');
    assert.equal(decodeRevertReason(panic(0x99n)), 'unknown panic code: 0x99');
  });

  test('custom errors and empty data → undefined', () => {
    assert.equal(decodeRevertReason(new Uint8Array(0)), undefined);
    assert.equal(decodeRevertReason(hexToBytes('0x08c379')), undefined);
    // error InsufficientBalance(uint256 available, uint256 required)
    assert.equal(decodeRevertReason(concatBytes(hexToBytes('0xcf479181'), word(1n), word(2n))), undefined);
    assert.equal(decodeRevertReason(hexToBytes('0xdeadbeef')), undefined);
  });

  test('truncated or malformed data → undefined', () => {
    const full = errorString('a reason long enough');
    assert.equal(decodeRevertReason(full.subarray(0, full.length - 12)), 'a reason long enough', 'padding may be cut');
    assert.equal(decodeRevertReason(full.subarray(0, 4 + 64 + 5)), undefined, 'string body cut');
    assert.equal(decodeRevertReason(full.subarray(0, 4 + 40)), undefined, 'length word cut');
    assert.equal(
      decodeRevertReason(concatBytes(hexToBytes('0x08c379a0'), word(2n ** 255n), word(4n))),
      undefined,
      'huge offset',
    );
    assert.equal(
      decodeRevertReason(concatBytes(hexToBytes('0x08c379a0'), word(32n), word(2n ** 64n))),
      undefined,
      'huge length',
    );
    assert.equal(decodeRevertReason(panic(0x11n).subarray(0, 20)), undefined, 'panic cut');
    assert.equal(
      decodeRevertReason(concatBytes(panic(0x11n), new Uint8Array(1))),
      undefined,
      'panic with trailing bytes',
    );
  });
});
