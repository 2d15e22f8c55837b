// Decoding revert data into geth's "execution reverted: <reason>" text (Error(string) and Panic(uint256)).
import { bareHex, bytesToBigint } from '../../primitives/hex.ts';

const ERROR_SELECTOR = '08c379a0';
const PANIC_SELECTOR = '4e487b71';

const PANIC_REASONS: Record<string, string> = {
  '0': 'generic panic',
  '1': 'assert(false)',
  '17': 'arithmetic underflow or overflow',
  '18': 'division or modulo by zero',
  '33': 'enum overflow',
  '34': 'invalid encoded storage byte array accessed',
  '49': 'out-of-bounds array access; popping on an empty array',
  '50': 'out-of-bounds access of an array or bytesN',
  '65': 'out of memory',
  '81': 'uninitialized function',
};

/** The human reason inside revert data, or undefined when the data is not Error(string)/Panic(uint256). */
export function decodeRevertReason(data: Uint8Array): string | undefined {
  if (data.length < 4) return undefined;
  const sel = bareHex(data.subarray(0, 4));
  if (sel === ERROR_SELECTOR && data.length >= 4 + 64) {
    const offset = Number(bytesToBigint(data.subarray(4, 36)));
    const start = 4 + offset;
    if (start + 32 > data.length) return undefined;
    const len = Number(bytesToBigint(data.subarray(start, start + 32)));
    if (start + 32 + len > data.length) return undefined;
    return new TextDecoder().decode(data.subarray(start + 32, start + 32 + len));
  }
  if (sel === PANIC_SELECTOR && data.length === 36) {
    const code = bytesToBigint(data.subarray(4));
    return PANIC_REASONS[code.toString()] ?? `unknown panic code: 0x${code.toString(16)}`;
  }
  return undefined;
}
