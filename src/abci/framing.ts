// ABCI socket framing (CometBFT ≥ 0.37): every protobuf message is prefixed by its byte length as an unsigned
// varint. The decoder accepts arbitrary TCP chunking (split headers, many messages per chunk, multi-megabyte
// blocks in hundreds of chunks) and copies a large message's bytes once, not once per chunk.

/** Largest message accepted: a FinalizeBlock carries a whole block (CometBFT's default max is 22 MB). */
export const DEFAULT_MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

/** The stream is not ABCI framing (an overlong varint, or a length over the limit): the connection must close. */
export class FramingError extends Error {
  override name = 'FramingError';
}

/** Unsigned varint encoding of a non-negative integer (protobuf/Go binary.PutUvarint). */
export function encodeUvarint(n: number): Uint8Array {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`uvarint out of range: ${n}`);
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return Uint8Array.from(out);
}

/** One length-prefixed frame holding `message`. */
export function encodeFrame(message: Uint8Array): Buffer {
  const prefix = encodeUvarint(message.length);
  const out = Buffer.allocUnsafe(prefix.length + message.length);
  out.set(prefix, 0);
  out.set(message, prefix.length);
  return out;
}

/** Splits a byte stream into messages. */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Length of the message being collected, once its prefix has been read. */
  private want: number | undefined;

  constructor(private readonly maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES) {}

  /** Bytes received but not yet returned as messages. */
  get pendingBytes(): number {
    return this.buffered;
  }

  /** Feeds a chunk; returns the messages it completed, in order. Throws FramingError on a corrupt stream. */
  push(chunk: Uint8Array): Buffer[] {
    if (chunk.length > 0) {
      this.chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
      this.buffered += chunk.length;
    }
    const out: Buffer[] = [];
    for (;;) {
      if (this.want === undefined) {
        const header = this.readLength();
        if (header === undefined) break;
        this.want = header;
      }
      if (this.buffered < this.want) break;
      out.push(this.take(this.want));
      this.want = undefined;
    }
    return out;
  }

  /** Reads and consumes a uvarint prefix if complete; undefined when more bytes are needed. */
  private readLength(): number | undefined {
    let value = 0;
    let scale = 1;
    let i = 0;
    for (const c of this.chunks) {
      for (let j = 0; j < c.length; j++, i++) {
        const b = c[j]!;
        // Go's ReadUvarint allows 10 bytes for a uint64; anything past 5 bytes is over any length we accept.
        if (i >= 5) throw new FramingError('ABCI frame length prefix is too long (not a uvarint length)');
        value += (b & 0x7f) * scale;
        scale *= 0x80;
        if ((b & 0x80) === 0) {
          if (value > this.maxMessageBytes) {
            throw new FramingError(`ABCI message of ${value} bytes exceeds the limit of ${this.maxMessageBytes} bytes`);
          }
          this.take(i + 1);
          return value;
        }
      }
    }
    return undefined;
  }

  /** Removes and returns the first `n` buffered bytes (copying only when they span chunks). */
  private take(n: number): Buffer {
    this.buffered -= n;
    const first = this.chunks[0];
    if (n === 0) return Buffer.alloc(0);
    if (first && first.length >= n) {
      const head = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
      return head;
    }
    const out = Buffer.allocUnsafe(n);
    let at = 0;
    while (at < n) {
      const c = this.chunks[0]!;
      const part = Math.min(c.length, n - at);
      c.copy(out, at, 0, part);
      at += part;
      if (part === c.length) this.chunks.shift();
      else this.chunks[0] = c.subarray(part);
    }
    return out;
  }
}
