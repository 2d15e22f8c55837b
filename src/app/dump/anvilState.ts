// Anvil's state dump format (anvil_dumpState, --dump-state): JSON {block, accounts: {address: {nonce, balance, code,
// storage: {slot: word}}}, best_block_number, blocks, transactions, historical_states}; over JSON-RPC the bytes are
// gzipped and hex-encoded. Kestrel writes the accounts and storage of its head state (no block history) and loads
// the accounts of any such dump as state edits. Its own module accounts and system contracts stay out both ways: their
// state is the chain's (staking, bank supply, block-hash history), not the user's.
import { gunzipSync, gzipSync } from 'node:zlib';
import { InvalidParamsError } from '../../errors/index.ts';
import { bigintToBytes, bytesToHex, hexToBytes, padLeft, toQuantity } from '../../primitives/hex.ts';
import type { StateView } from '../state/stateView.ts';
import {
  BANK_ADDRESS,
  BECH32_ADDRESS,
  BONDED_POOL,
  DISTRIBUTION_ADDRESS,
  DISTRIBUTION_POOL,
  FEE_COLLECTOR,
  NOT_BONDED_POOL,
  SLASHING_ADDRESS,
  STAKING_ADDRESS,
} from '../staking/env.ts';
import type { StateEdit } from '../stateEdits.ts';
import type { TouchedState } from './touched.ts';

/** One account of a dump. */
export interface AnvilAccount {
  nonce: number;
  balance: string;
  code: string;
  storage: Record<string, string>;
}

/** A whole dump, as Anvil 1.x writes it. */
export interface AnvilState {
  block: Record<string, unknown> | null;
  accounts: Record<string, AnvilAccount>;
  best_block_number: number | null;
  blocks: unknown[];
  transactions: unknown[];
  historical_states: null;
}

const addrHex = (n: bigint) => '0x' + n.toString(16).padStart(40, '0');

/** Accounts whose state belongs to the chain itself, kept out of dumps and loads. */
const CHAIN_ACCOUNTS = new Set(
  [
    STAKING_ADDRESS,
    DISTRIBUTION_ADDRESS,
    BANK_ADDRESS,
    SLASHING_ADDRESS,
    BECH32_ADDRESS,
    BONDED_POOL,
    NOT_BONDED_POOL,
    DISTRIBUTION_POOL,
    FEE_COLLECTOR,
    0x0000f90827f1c53a10cb7a02335b175320002935n, // EIP-2935 block hashes
    0x000f3df6d732807ef1319fb7b8bb8522d0beac02n, // EIP-4788 beacon roots
  ].map(addrHex),
);

const ZERO_WORD = '0x' + '00'.repeat(32);

/** The head state as Anvil's dump: every account and slot blocks wrote that still holds something. */
export async function dumpState(view: StateView, touched: TouchedState): Promise<AnvilState> {
  const accounts: Record<string, AnvilAccount> = {};
  for await (const [a, slots] of touched.entries()) {
    const address = '0x' + a;
    if (CHAIN_ACCOUNTS.has(address)) continue;
    const addr = hexToBytes(address);
    const acc = view.account(addr);
    if (acc === undefined) continue;
    const storage: Record<string, string> = {};
    for (const s of slots) {
      const word = bytesToHex(view.storage(addr, hexToBytes('0x' + s)));
      if (word !== ZERO_WORD) storage['0x' + s] = word;
    }
    accounts[address] = {
      nonce: Number(acc.nonce),
      balance: toQuantity(acc.balance),
      code: bytesToHex(view.code(addr)),
      storage,
    };
  }
  // No block env and no best block: Anvil would then look for a block of that number among the dump's blocks, and
  // Kestrel's history is not part of the dump.
  return {
    block: null,
    accounts,
    best_block_number: null,
    blocks: [],
    transactions: [],
    historical_states: null,
  };
}

/** A dump for anvil_dumpState: gzipped JSON as 0x-hex. */
export function encodeDump(state: AnvilState): string {
  return bytesToHex(gzipSync(JSON.stringify(state)));
}

/** The JSON of anvil_loadState's bytes: gzipped (what anvil_dumpState returns) or plain. */
export function decodeDump(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = (bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : Buffer.from(bytes)).toString('utf8');
  } catch {
    throw new InvalidParamsError('invalid state: not gzip');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new InvalidParamsError('invalid state: not JSON');
  }
}

function hexField(v: unknown, what: string, maxBytes: number): Uint8Array {
  if (typeof v !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(v) || (v.length - 2) / 2 > maxBytes)
    throw new InvalidParamsError(`invalid state: ${what} must be hex of at most ${maxBytes} bytes`);
  return hexToBytes(v.toLowerCase());
}

function quantityField(v: unknown, what: string, bits: number): bigint {
  let n: bigint | undefined;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) n = BigInt(v);
  else if (typeof v === 'string' && /^0x[0-9a-fA-F]{1,64}$/.test(v)) n = BigInt(v);
  if (n === undefined || n >> BigInt(bits) !== 0n) throw new InvalidParamsError(`invalid state: bad ${what}`);
  return n;
}

/** The edits that load a dump's accounts (nonce, balance, code and the listed slots of each); clear errors on bad input. */
export function loadEdits(json: unknown): StateEdit[] {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new InvalidParamsError('invalid state: expected a JSON object');
  const accounts = (json as Record<string, unknown>)['accounts'];
  if (typeof accounts !== 'object' || accounts === null || Array.isArray(accounts))
    throw new InvalidParamsError('invalid state: missing "accounts" object');
  const edits: StateEdit[] = [];
  for (const [address, raw] of Object.entries(accounts as Record<string, unknown>)) {
    const addr = hexField(address, `account address ${address}`, 20);
    if (addr.length !== 20) throw new InvalidParamsError(`invalid state: account address ${address}`);
    if (CHAIN_ACCOUNTS.has(bytesToHex(addr))) continue;
    if (typeof raw !== 'object' || raw === null) throw new InvalidParamsError(`invalid state: account ${address}`);
    const a = raw as Record<string, unknown>;
    const storage: Array<[Uint8Array, Uint8Array]> = [];
    const slots = a['storage'] ?? {};
    if (typeof slots !== 'object' || slots === null || Array.isArray(slots))
      throw new InvalidParamsError(`invalid state: storage of ${address}`);
    for (const [slot, word] of Object.entries(slots as Record<string, unknown>)) {
      storage.push([
        padLeft(bigintToBytes(quantityField(slot, `slot ${slot} of ${address}`, 256)), 32),
        padLeft(bigintToBytes(quantityField(word, `word at ${slot} of ${address}`, 256)), 32),
      ]);
    }
    edits.push({
      address: addr,
      nonce: quantityField(a['nonce'] ?? 0, `nonce of ${address}`, 64),
      balance: quantityField(a['balance'] ?? '0x0', `balance of ${address}`, 256),
      code: hexField(a['code'] ?? '0x', `code of ${address}`, 0x6000 * 2),
      storage,
    });
  }
  return edits;
}
