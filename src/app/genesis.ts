// genesis.json: the Cosmos-style document `kestreld init` writes, and the initial EVM allocation read from it.
import { fromBech32, toBech32 } from '../primitives/bech32.ts';
import { deriveAccounts, DEV_MNEMONIC } from '../keys/devAccounts.ts';
import { parseModulesGenesis, type ModulesGenesis } from './staking/genesis.ts';
import { NOT_BONDED_POOL } from './staking/env.ts';
import { addressToBytes } from '../primitives/bytes.ts';
import { type Fork, FORKS, forkRules, HISTORY_STORAGE_ADDRESS } from '../evm/index.ts';
import { bigintToBytes, bytesToHex, hexToBytes, padLeft } from '../primitives/hex.ts';
import { DEFAULT_FORK } from './evm/common.ts';
import type { StateEdit } from './stateEdits.ts';

/** One coin of a bank balance. */
export interface Coin {
  denom: string;
  amount: string;
}

/** The parts of genesis.json the node reads. */
export interface GenesisDoc {
  genesis_time: string;
  chain_id: string;
  initial_height: string;
  consensus_params: { block: { max_bytes: string; max_gas: string } };
  app_state: {
    /**
     * `params.fork`: the Ethereum fork the chain runs from block 0 (absent: Prague, the fork before it was written).
     * `accounts`: accounts with code (Ethermint's shape, with a nonce): the system contracts a new chain starts with.
     */
    evm: { params: { evm_denom: string; fork?: string }; accounts?: GenesisAccount[] };
    feemarket: { params: { base_fee: string; no_base_fee: boolean } };
    bank: { balances: Array<{ address: string; coins: Coin[] }>; denom_metadata: unknown[] };
    /** Under CometBFT: who receives the fees of the blocks each validator proposes. */
    fee_recipients?: FeeRecipientEntry[];
  };
}

/**
 * One validator's fee recipient: `validator` is its CometBFT consensus address (40 hex digits, as in CometBFT's
 * genesis `validators[].address`), `recipient` the operator's Ethereum account (0x-hex or bech32).
 */
export interface FeeRecipientEntry {
  validator: string;
  recipient: string;
}

/** An account with code in genesis: 0x-hex address and code, decimal nonce, 32-byte hex storage words. */
export interface GenesisAccount {
  address: string;
  code: string;
  nonce?: string;
  storage?: Array<{ key: string; value: string }>;
}

/** The decoded genesis the app builds block 0 from. */
export interface Genesis {
  chainId: string;
  time: bigint;
  blockGasLimit: bigint;
  baseFee: bigint;
  evmDenom: string;
  /** The Ethereum fork the chain runs: a consensus rule, so it lives in genesis, never in a node's app.toml. */
  fork: Fork;
  alloc: Array<{ address: Uint8Array; balance: bigint }>;
  /** Accounts with code (after the balances: an address in both gets both). */
  accounts: StateEdit[];
  /** Balances of the other denoms (the bank store), per account, zero amounts dropped. */
  bank: Array<{ address: Uint8Array; coins: Array<{ denom: string; amount: bigint }> }>;
  /** Fee recipient per consensus address (upper-case hex, CometBFT's spelling). */
  feeRecipients: Map<string, Uint8Array>;
  /** Staking, slashing and distribution: parameters and genesis validators. */
  modules: ModulesGenesis;
  /** The bech32 account prefix the document was read with. */
  prefix: string;
}

/** The Cosmos SDK's denom rule (sdk.ValidateDenom). */
export const DENOM_REGEX = /^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$/;

export const DEV_BALANCE = 10_000n * 10n ** 18n;
export const DEFAULT_BLOCK_GAS_LIMIT = 30_000_000n;
export const INITIAL_BASE_FEE = 1_000_000_000n;
/** The fork of a genesis that names none: every chain made before the field existed ran Prague. */
export const UNNAMED_GENESIS_FORK: Fork = 'Prague';

/**
 * EIP-2935's history contract as the EIP deploys it (nonce 1), which a new chain of a fork that calls it gets at
 * genesis, as geth's --dev genesis does: its system call (each block stores its parent's hash) then has a contract
 * to write to, and contracts can read the last 8191 block hashes from it.
 */
export const HISTORY_STORAGE_CODE =
  '0x3373fffffffffffffffffffffffffffffffffffffffe14604657602036036042575f35600143038111604257611fff81430311604257611fff9006545f5260205ff35b5f5ffd5b5f35611fff60014303065500';

/** The system contracts a new genesis running `fork` holds. */
export function systemContracts(fork: Fork): GenesisAccount[] {
  if (!forkRules(fork).historyStorage) return [];
  return [
    {
      address: bytesToHex(padLeft(bigintToBytes(HISTORY_STORAGE_ADDRESS), 20)),
      code: HISTORY_STORAGE_CODE,
      nonce: '1',
    },
  ];
}

/**
 * Builds a genesis document running `fork` (default Osaka); `--dev` funds the ten dev accounts with the EVM denom
 * and a second denom.
 */
export function makeGenesisDoc(opts: {
  chainId: string;
  evmDenom: string;
  prefix: string;
  dev: boolean;
  now: Date;
  fork?: Fork;
}): GenesisDoc {
  const balances = opts.dev
    ? deriveAccounts(DEV_MNEMONIC, 10).map((a) => ({
        address: toBech32(a.address, opts.prefix),
        coins: [
          { denom: opts.evmDenom, amount: DEV_BALANCE.toString() },
          { denom: 'stake', amount: (10n ** 24n).toString() },
        ],
      }))
    : [];
  const fork = opts.fork ?? DEFAULT_FORK;
  return {
    genesis_time: new Date(Math.floor(opts.now.getTime() / 1000) * 1000).toISOString(),
    chain_id: opts.chainId,
    initial_height: '0',
    consensus_params: { block: { max_bytes: '22020096', max_gas: DEFAULT_BLOCK_GAS_LIMIT.toString() } },
    app_state: {
      evm: { params: { evm_denom: opts.evmDenom, fork }, accounts: systemContracts(fork) },
      feemarket: { params: { base_fee: INITIAL_BASE_FEE.toString(), no_base_fee: false } },
      bank: { balances, denom_metadata: [] },
    },
  };
}

/** Validates a genesis document and extracts what block 0 needs. */
export function parseGenesis(doc: GenesisDoc, prefix: string): Genesis {
  const evmDenom = doc.app_state?.evm?.params?.evm_denom;
  if (typeof evmDenom !== 'string' || evmDenom === '')
    throw new Error('genesis: app_state.evm.params.evm_denom missing');
  const time = Date.parse(doc.genesis_time);
  if (Number.isNaN(time)) throw new Error(`genesis: invalid genesis_time "${doc.genesis_time}"`);
  const alloc: Genesis['alloc'] = [];
  const bank: Genesis['bank'] = [];
  const seen = new Set<string>();
  for (const b of doc.app_state.bank?.balances ?? []) {
    const address = fromBech32(b.address, prefix);
    if (seen.has(b.address)) throw new Error(`genesis: duplicate balance for address ${b.address}`);
    seen.add(b.address);
    const denoms = new Set<string>();
    const others: Genesis['bank'][number]['coins'] = [];
    for (const c of b.coins) {
      if (!DENOM_REGEX.test(c.denom)) throw new Error(`genesis: ${b.address}: invalid denom: ${c.denom}`);
      if (!/^\d+$/.test(c.amount)) throw new Error(`genesis: ${b.address}: invalid amount "${c.amount}" of ${c.denom}`);
      if (denoms.has(c.denom)) throw new Error(`genesis: ${b.address}: duplicate denomination ${c.denom}`);
      denoms.add(c.denom);
      const amount = BigInt(c.amount);
      if (c.denom === evmDenom) alloc.push({ address, balance: amount });
      else if (amount > 0n) others.push({ denom: c.denom, amount });
    }
    if (others.length > 0) bank.push({ address, coins: others });
  }
  const modules = parseModulesGenesis(doc.app_state as unknown as Record<string, unknown>, evmDenom, prefix);
  // The genesis validators' self-delegations are new tokens in the not-bonded pool (bonded at block 0).
  const staked = modules.validators.reduce((n, v) => n + v.selfDelegation, 0n);
  if (staked > 0n) alloc.push({ address: addressToBytes(NOT_BONDED_POOL), balance: staked });
  return {
    modules,
    prefix,
    feeRecipients: parseFeeRecipients(doc.app_state.fee_recipients, prefix),
    fork: parseFork(doc.app_state.evm.params.fork),
    accounts: parseAccounts(doc.app_state.evm.accounts),
    chainId: doc.chain_id,
    time: BigInt(Math.floor(time / 1000)),
    blockGasLimit: BigInt(doc.consensus_params.block.max_gas),
    baseFee: BigInt(doc.app_state.feemarket.params.base_fee),
    evmDenom,
    alloc,
    bank,
  };
}

/** Reads app_state.evm.accounts (absent: none). */
export function parseAccounts(entries: GenesisAccount[] | undefined): StateEdit[] {
  if (entries === undefined) return [];
  if (!Array.isArray(entries)) throw new Error('genesis: app_state.evm.accounts must be a list');
  const hex = (v: unknown, what: string, bytes?: number): Uint8Array => {
    const s = typeof v === 'string' ? v.replace(/^0x/i, '') : '';
    if (!/^([0-9a-fA-F]{2})*$/.test(s) || (bytes !== undefined && s.length !== 2 * bytes)) {
      throw new Error(`genesis: app_state.evm.accounts: ${what} "${String(v)}" is not ${bytes ?? 'a'}-byte hex`);
    }
    return hexToBytes('0x' + s);
  };
  return entries.map((e) => {
    const nonce = e.nonce ?? '0';
    if (!/^\d+$/.test(nonce)) throw new Error(`genesis: app_state.evm.accounts: invalid nonce "${nonce}"`);
    return {
      address: hex(e.address, 'address', 20),
      nonce: BigInt(nonce),
      code: hex(e.code, 'code'),
      storage: (e.storage ?? []).map(
        (s) => [hex(s.key, 'storage key', 32), hex(s.value, 'storage value', 32)] as const,
      ),
    };
  });
}

/** Reads app_state.evm.params.fork: one of the forks the engine runs, Prague when absent. */
export function parseFork(value: unknown): Fork {
  if (value === undefined) return UNNAMED_GENESIS_FORK;
  if (typeof value === 'string' && (FORKS as readonly string[]).includes(value)) return value as Fork;
  throw new Error(`genesis: app_state.evm.params.fork "${String(value)}" is not one of ${FORKS.join(', ')}`);
}

/** Reads app_state.fee_recipients: one entry per consensus address, each recipient a valid account address. */
export function parseFeeRecipients(entries: FeeRecipientEntry[] | undefined, prefix: string): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  if (entries === undefined) return out;
  if (!Array.isArray(entries)) throw new Error('genesis: app_state.fee_recipients must be a list');
  for (const e of entries) {
    const validator = typeof e?.validator === 'string' ? e.validator.replace(/^0x/i, '').toUpperCase() : '';
    if (!/^[0-9A-F]{40}$/.test(validator)) {
      throw new Error(
        `genesis: fee_recipients: validator "${String(e?.validator)}" must be a 20-byte hex consensus address`,
      );
    }
    if (out.has(validator)) throw new Error(`genesis: fee_recipients: duplicate validator ${validator}`);
    const r = typeof e.recipient === 'string' ? e.recipient : '';
    let recipient: Uint8Array;
    if (/^0x[0-9a-fA-F]{40}$/.test(r)) recipient = Uint8Array.from(Buffer.from(r.slice(2), 'hex'));
    else {
      try {
        recipient = fromBech32(r, prefix);
      } catch (err) {
        throw new Error(`genesis: fee_recipients: recipient "${r}" of ${validator}: ${(err as Error).message}`);
      }
    }
    out.set(validator, recipient);
  }
  return out;
}
