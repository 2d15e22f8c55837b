// State override and block override codecs (geth's override.StateOverride and override.BlockOverrides): unknown
// fields are ignored, absent and null fields stay undefined.
import type {
  AccountOverride,
  BlockOverrides,
  SlotValue,
  StateOverrides,
  Withdrawal,
} from '../../primitives/overrides.ts';
import type { Codec } from './codec.ts';
import { codec } from './codec.ts';
import { UnmarshalTypeError, address, atField, bytes, hash32, jsonKind } from './data.ts';
import { uint256, uint64 } from './quantity.ts';

type Obj = Record<string, unknown>;

function isObject(raw: unknown): raw is Obj {
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw);
}

/** Decodes obj[key] with `c` unless absent or null; errors name `struct.key`. */
function field<T>(obj: Obj, key: string, c: Codec<T>, struct: string): T | undefined {
  const raw = Object.hasOwn(obj, key) ? obj[key] : undefined;
  if (raw === undefined || raw === null) return undefined;
  try {
    return c.decode(raw);
  } catch (e) {
    throw atField(e, `${struct}.${key}`);
  }
}

/** A JSON object of 32-byte hashes to 32-byte hashes (map[common.Hash]common.Hash). */
const slotMap: Codec<SlotValue[]> = codec((raw) => {
  if (!isObject(raw)) throw new UnmarshalTypeError(jsonKind(raw), 'map[common.Hash]common.Hash');
  return Object.entries(raw).map(([k, v]): SlotValue => [hash32.decode(k), hash32.decode(v)]);
});

/** One account's overrides. */
function accountOverride(addr: Uint8Array, raw: unknown): AccountOverride {
  const struct = 'override.OverrideAccount';
  if (!isObject(raw)) throw new UnmarshalTypeError(jsonKind(raw), struct);
  const out: AccountOverride = { address: addr };
  const nonce = field(raw, 'nonce', uint64, struct);
  const code = field(raw, 'code', bytes, struct);
  const balance = field(raw, 'balance', uint256, struct);
  const state = field(raw, 'state', slotMap, struct);
  const stateDiff = field(raw, 'stateDiff', slotMap, struct);
  const move = field(raw, 'movePrecompileToAddress', address, struct);
  if (nonce !== undefined) out.nonce = nonce;
  if (code !== undefined) out.code = code;
  if (balance !== undefined) out.balance = balance;
  if (state !== undefined) out.state = state;
  if (stateDiff !== undefined) out.stateDiff = stateDiff;
  if (move !== undefined) out.movePrecompileTo = move;
  return out;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length && i < b.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** `{"0x<address>": {balance?, nonce?, code?, state?, stateDiff?, movePrecompileToAddress?}, …}`. */
export const stateOverrides: Codec<StateOverrides> = codec((raw) => {
  if (!isObject(raw)) throw new UnmarshalTypeError(jsonKind(raw), 'override.StateOverride');
  const out = Object.entries(raw).map(([k, v]) => accountOverride(address.decode(k), v));
  return out.sort((a, b) => compareBytes(a.address, b.address));
});

const withdrawal: Codec<Withdrawal> = codec((raw) => {
  const struct = 'types.Withdrawal';
  if (!isObject(raw)) throw new UnmarshalTypeError(jsonKind(raw), struct);
  return {
    index: field(raw, 'index', uint64, struct) ?? 0n,
    validatorIndex: field(raw, 'validatorIndex', uint64, struct) ?? 0n,
    address: field(raw, 'address', address, struct) ?? new Uint8Array(20),
    amount: field(raw, 'amount', uint64, struct) ?? 0n,
  };
});

const withdrawals: Codec<Withdrawal[]> = codec((raw) => {
  if (!Array.isArray(raw)) throw new UnmarshalTypeError(jsonKind(raw), 'types.Withdrawals');
  return raw.map((w: unknown) => withdrawal.decode(w));
});

/** `{number?, difficulty?, time?, gasLimit?, feeRecipient?, prevRandao?, baseFeePerGas?, blobBaseFee?, …}`. */
export const blockOverrides: Codec<BlockOverrides> = codec((raw) => {
  const struct = 'override.BlockOverrides';
  if (!isObject(raw)) throw new UnmarshalTypeError(jsonKind(raw), struct);
  const out: BlockOverrides = {
    number: field(raw, 'number', uint256, struct),
    difficulty: field(raw, 'difficulty', uint256, struct),
    time: field(raw, 'time', uint64, struct),
    gasLimit: field(raw, 'gasLimit', uint64, struct),
    feeRecipient: field(raw, 'feeRecipient', address, struct),
    prevRandao: field(raw, 'prevRandao', hash32, struct),
    baseFeePerGas: field(raw, 'baseFeePerGas', uint256, struct),
    blobBaseFee: field(raw, 'blobBaseFee', uint256, struct),
    beaconRoot: field(raw, 'beaconRoot', hash32, struct),
    withdrawals: field(raw, 'withdrawals', withdrawals, struct),
  };
  for (const k of Object.keys(out) as (keyof BlockOverrides)[]) if (out[k] === undefined) delete out[k];
  return out;
});
