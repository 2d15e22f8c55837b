import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeFrame, encodeUvarint, FrameDecoder, FramingError } from './framing.ts';

const msg = (n: number, fill: number) => Buffer.alloc(n, fill);

describe('ABCI framing', () => {
  it('encodes lengths as unsigned varints (not zigzag)', () => {
    assert.deepEqual([...encodeUvarint(0)], [0]);
    assert.deepEqual([...encodeUvarint(2)], [2]);
    assert.deepEqual([...encodeUvarint(300)], [0xac, 0x02]);
    assert.deepEqual([...encodeFrame(Uint8Array.from([0x12, 0x00]))], [0x02, 0x12, 0x00]); // Request{flush}
  });

  it('returns several messages coalesced in one chunk, in order', () => {
    const d = new FrameDecoder();
    const stream = Buffer.concat([encodeFrame(msg(3, 1)), encodeFrame(msg(0, 0)), encodeFrame(msg(200, 2))]);
    const out = d.push(stream);
    assert.deepEqual(
      out.map((m) => m.length),
      [3, 0, 200],
    );
    assert.equal(out[2]![199], 2);
    assert.equal(d.pendingBytes, 0);
  });

  it('reassembles a message split byte by byte, including a split length prefix', () => {
    const d = new FrameDecoder();
    const stream = Buffer.concat([encodeFrame(msg(300, 7)), encodeFrame(msg(5, 9))]);
    const out: Buffer[] = [];
    for (const b of stream) out.push(...d.push(Uint8Array.of(b)));
    assert.deepEqual(
      out.map((m) => [m.length, m[0]]),
      [
        [300, 7],
        [5, 9],
      ],
    );
  });

  it('reassembles a 30 MB message arriving in 64 KiB chunks', () => {
    const big = Buffer.alloc(30 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4096) big[i] = i % 251;
    const stream = encodeFrame(big);
    const d = new FrameDecoder();
    const out: Buffer[] = [];
    for (let i = 0; i < stream.length; i += 65536) out.push(...d.push(stream.subarray(i, i + 65536)));
    assert.equal(out.length, 1);
    assert.ok(out[0]!.equals(big));
  });

  it('rejects a length over the limit and an overlong prefix', () => {
    assert.throws(() => new FrameDecoder(1000).push(encodeUvarint(1001)), FramingError);
    assert.throws(() => new FrameDecoder().push(Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])), /too long/);
    // An incomplete prefix is not an error yet: more bytes may come.
    assert.deepEqual(new FrameDecoder().push(Buffer.from([0x80, 0x80])), []);
  });
});
