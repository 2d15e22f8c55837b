// The records of the staking, slashing and distribution modules (Cosmos SDK semantics), their parameters and their
// byte encodings in module storage. Decimals are Cosmos LegacyDec: a bigint scaled by 10^18.
import { rlpEncode, rlpDecode } from '../../primitives/rlp.ts';
import { bigintToBytes, bytesToBigint } from '../../primitives/hex.ts';

/** 1.0 as a LegacyDec. */
export const DEC = 10n ** 18n;
/** Tokens per unit of consensus power (Cosmos EVM's 10^18: one power per whole coin). */
export const POWER_REDUCTION = 10n ** 18n;

/** A validator's bond status (the proto enum's numbers). */
export const enum BondStatus {
  Unbonded = 1,
  Unbonding = 2,
  Bonded = 3,
}

/** The proto enum's names, by number. */
export const BOND_STATUS_NAMES = [
  'BOND_STATUS_UNSPECIFIED',
  'BOND_STATUS_UNBONDED',
  'BOND_STATUS_UNBONDING',
  'BOND_STATUS_BONDED',
];

/** A validator's description (every field optional but the moniker). */
export interface Description {
  moniker: string;
  identity: string;
  website: string;
  securityContact: string;
  details: string;
}

/** Commission rates (LegacyDec) and when they last changed (unix seconds). */
export interface Commission {
  rate: bigint;
  maxRate: bigint;
  maxChangeRate: bigint;
  updateTime: bigint;
}

/** A validator. Its address is its operator's account address. */
export interface Validator {
  operator: Uint8Array;
  /** The ed25519 consensus public key (32 bytes). */
  consPubkey: Uint8Array;
  jailed: boolean;
  status: BondStatus;
  tokens: bigint;
  /** LegacyDec. */
  delegatorShares: bigint;
  description: Description;
  unbondingHeight: bigint;
  unbondingTime: bigint;
  commission: Commission;
  minSelfDelegation: bigint;
}

/** One maturing undelegation. */
export interface UnbondingEntry {
  creationHeight: bigint;
  completionTime: bigint;
  initialBalance: bigint;
  balance: bigint;
  id: bigint;
}

/** One maturing redelegation. */
export interface RedelegationEntry {
  creationHeight: bigint;
  completionTime: bigint;
  initialBalance: bigint;
  /** LegacyDec shares received at the destination. */
  sharesDst: bigint;
  id: bigint;
}

/** Parameters of the three modules, fixed by genesis. */
export interface StakingParams {
  bondDenom: string;
  /** Seconds. */
  unbondingTime: bigint;
  maxValidators: number;
  /** The least minSelfDelegation a validator may declare (tokens). */
  minSelfDelegation: bigint;
  /** LegacyDec: the least commission rate. */
  minCommissionRate: bigint;
  signedBlocksWindow: bigint;
  /** LegacyDec. */
  minSignedPerWindow: bigint;
  /** Seconds. */
  downtimeJailDuration: bigint;
  /** LegacyDec. */
  slashFractionDoubleSign: bigint;
  /** LegacyDec. */
  slashFractionDowntime: bigint;
  /** LegacyDec. */
  communityTax: bigint;
  /** LegacyDec per year of the supply, minted into the fees (0: none). */
  inflationRate: bigint;
  /** Whether the fees of each block go to the distribution module (else to the block's coinbase). */
  distributeFees: boolean;
}

/** The Cosmos SDK's defaults, with the bond denom of the chain. */
export function defaultParams(bondDenom: string): StakingParams {
  return {
    bondDenom,
    unbondingTime: 21n * 24n * 3600n,
    maxValidators: 100,
    minSelfDelegation: 1n,
    minCommissionRate: 0n,
    signedBlocksWindow: 100n,
    minSignedPerWindow: DEC / 2n,
    downtimeJailDuration: 600n,
    slashFractionDoubleSign: DEC / 20n,
    slashFractionDowntime: DEC / 100n,
    communityTax: DEC / 50n,
    inflationRate: 0n,
    distributeFees: false,
  };
}

/** Signing info of a validator's consensus key (x/slashing). */
export interface SigningInfo {
  address: Uint8Array;
  startHeight: bigint;
  indexOffset: bigint;
  jailedUntil: bigint;
  tombstoned: boolean;
  missedBlocksCounter: bigint;
}

const utf8 = new TextEncoder();
const utf8dec = new TextDecoder();
const int = (b: Uint8Array): bigint => bytesToBigint(b);
const enc = (n: bigint | number | boolean): Uint8Array =>
  bigintToBytes(typeof n === 'boolean' ? (n ? 1n : 0n) : BigInt(n));
type Item = Uint8Array | Item[];

/** A validator's storage encoding. */
export function encodeValidator(v: Validator): Uint8Array {
  const d = v.description;
  const c = v.commission;
  return rlpEncode([
    v.operator,
    v.consPubkey,
    enc(v.jailed),
    enc(v.status),
    enc(v.tokens),
    enc(v.delegatorShares),
    [d.moniker, d.identity, d.website, d.securityContact, d.details].map((s) => utf8.encode(s)),
    enc(v.unbondingHeight),
    enc(v.unbondingTime),
    [enc(c.rate), enc(c.maxRate), enc(c.maxChangeRate), enc(c.updateTime)],
    enc(v.minSelfDelegation),
  ]);
}

/** Decodes {@link encodeValidator}. */
export function decodeValidator(raw: Uint8Array): Validator {
  const f = rlpDecode(raw) as Item[];
  const d = (f[6] as Uint8Array[]).map((b) => utf8dec.decode(b));
  const c = f[9] as Uint8Array[];
  return {
    operator: f[0] as Uint8Array,
    consPubkey: f[1] as Uint8Array,
    jailed: int(f[2] as Uint8Array) === 1n,
    status: Number(int(f[3] as Uint8Array)) as BondStatus,
    tokens: int(f[4] as Uint8Array),
    delegatorShares: int(f[5] as Uint8Array),
    description: { moniker: d[0]!, identity: d[1]!, website: d[2]!, securityContact: d[3]!, details: d[4]! },
    unbondingHeight: int(f[7] as Uint8Array),
    unbondingTime: int(f[8] as Uint8Array),
    commission: { rate: int(c[0]!), maxRate: int(c[1]!), maxChangeRate: int(c[2]!), updateTime: int(c[3]!) },
    minSelfDelegation: int(f[10] as Uint8Array),
  };
}

/** A list of bigint tuples' storage encoding (entries, signing info, distribution records). */
export function encodeInts(rows: ReadonlyArray<ReadonlyArray<bigint | number | boolean>>): Uint8Array {
  return rlpEncode(rows.map((r) => r.map(enc)));
}

/** Decodes {@link encodeInts}. */
export function decodeInts(raw: Uint8Array): bigint[][] {
  return (rlpDecode(raw) as Uint8Array[][]).map((r) => r.map(int));
}

/**
 * What x/staking calls on x/distribution as stake moves (the SDK's staking hooks): declared here so that staking.ts
 * need not import distribution.ts, which itself reads the staking keeper.
 */
export interface DistributionHooks {
  afterValidatorCreated(v: Validator): void;
  beforeDelegationCreated(v: Validator): void;
  beforeDelegationSharesModified(del: Uint8Array, v: Validator): void;
  afterDelegationModified(del: Uint8Array, v: Validator): void;
  afterDelegationRemoved(del: Uint8Array, v: Validator): void;
  beforeValidatorSlashed(v: Validator, fraction: bigint): void;
}
