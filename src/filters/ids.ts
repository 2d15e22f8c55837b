// Filter and subscription ids, geth style: 16 random bytes as a hex QUANTITY (leading zeros trimmed).
import { randomBytes } from 'node:crypto';

/** A fresh unguessable id such as "0x1f3a…" (never reused in practice: 128 random bits). */
export function newId(): string {
  const hex = randomBytes(16).toString('hex').replace(/^0+/, '');
  return '0x' + (hex === '' ? '0' : hex);
}
