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
import { UnmarshalTypeError, address, array, bytes, hash32, isJsonObject, jsonKind, structField } from './data.ts';
import { uint256, uint64 } from './quantity.ts';

/** A JSON object of 32-byte hashes to 32-byte hashes (map[common.Hash]common.Hash). */
const slotMap: Codec<SlotValue[]> = codec((raw) => {
  if (!isJsonObject(raw)) throw new UnmarshalTypeError(jsonKind(raw), 'map[common.Hash]common.Hash');
  return Object.entries(raw).map(([k, v]): SlotValue => [hash32.decode(k), hash32.decode(v)]);
});

/** One account's overrides. */
function accountOverride(addr: Uint8Array, raw: unknown): AccountOverride {
  const struct = 'override.OverrideAccount';
  if (!isJsonObject(raw)) throw new UnmarshalTypeError(jsonKind(raw), struct);
  const out: AccountOverride = { address: addr };
  const nonce = structField(raw, 'nonce', uint64, struct);
  const code = structField(raw, 'code', bytes, struct);
  const balance = structField(raw, 'balance', uint256, struct);
  const state = structField(raw, 'state', slotMap, struct);
  const stateDiff = structField(raw, 'stateDiff', slotMap, struct);
  const move = structField(raw, 'movePrecompileToAddress', address, struct);
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
  if (!isJsonObject(raw)) throw new UnmarshalTypeError(jsonKind(raw), 'override.StateOverride');
  const out = Object.entries(raw).map(([k, v]) => accountOverride(address.decode(k), v));
  return out.sort((a, b) => compareBytes(a.address, b.address));
});

const withdrawal: Codec<Withdrawal> = codec((raw) => {
  const struct = 'types.Withdrawal';
  if (!isJsonObject(raw)) throw new UnmarshalTypeError(jsonKind(raw), struct);
  return {
    index: structField(raw, 'index', uint64, struct) ?? 0n,
    validatorIndex: structField(raw, 'validatorIndex', uint64, struct) ?? 0n,
    address: structField(raw, 'address', address, struct) ?? new Uint8Array(20),
    amount: structField(raw, 'amount', uint64, struct) ?? 0n,
  };
});

const withdrawals: Codec<Withdrawal[]> = array(withdrawal, { goType: 'types.Withdrawals' });

/** `{number?, difficulty?, time?, gasLimit?, feeRecipient?, prevRandao?, baseFeePerGas?, blobBaseFee?, …}`. */
export const blockOverrides: Codec<BlockOverrides> = codec((raw) => {
  const struct = 'override.BlockOverrides';
  if (!isJsonObject(raw)) throw new UnmarshalTypeError(jsonKind(raw), struct);
  const out: BlockOverrides = {
    number: structField(raw, 'number', uint256, struct),
    difficulty: structField(raw, 'difficulty', uint256, struct),
    time: structField(raw, 'time', uint64, struct),
    gasLimit: structField(raw, 'gasLimit', uint64, struct),
    feeRecipient: structField(raw, 'feeRecipient', address, struct),
    prevRandao: structField(raw, 'prevRandao', hash32, struct),
    baseFeePerGas: structField(raw, 'baseFeePerGas', uint256, struct),
    blobBaseFee: structField(raw, 'blobBaseFee', uint256, struct),
    beaconRoot: structField(raw, 'beaconRoot', hash32, struct),
    withdrawals: structField(raw, 'withdrawals', withdrawals, struct),
  };
  for (const k of Object.keys(out) as (keyof BlockOverrides)[]) if (out[k] === undefined) delete out[k];
  return out;
});
