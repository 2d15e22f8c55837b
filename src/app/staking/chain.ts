// The chain's precompile table and fee rule: the fork's precompiles plus the modules' stateful ones, configured
// once per process from genesis (like the engine's own precompile libraries, they are process-wide). Every path
// that executes EVM code (blocks, eth_call, estimates, traces, simulations) takes its table from here.
import { precompilesFor, type Address, type ChainRules, type Fork, type Precompile } from '../../evm/index.ts';
import {
  BANK_ADDRESS,
  BECH32_ADDRESS,
  DISTRIBUTION_ADDRESS,
  FEE_COLLECTOR,
  SLASHING_ADDRESS,
  STAKING_ADDRESS,
} from './env.ts';
import { distributionPrecompile } from './precompiles/distribution.ts';
import type { ChainSettings } from './precompiles/method.ts';
import { bankPrecompile, bech32Precompile, slashingPrecompile } from './precompiles/others.ts';
import { stakingPrecompile } from './precompiles/staking.ts';

/** The settings the chain's modules run with. */
export interface ChainModuleSettings extends ChainSettings {
  /** The EVM denom's supply at genesis (the bank precompile adds mints and burns since). */
  genesisSupply: bigint;
}

let settings: ChainModuleSettings | undefined;
const tables = new Map<Fork, ReadonlyMap<Address, Precompile>>();
let rules: ChainRules = Object.freeze({ burnBaseFee: false });

/** Configures the modules for this process (at app open). */
export function configureChainModules(s: ChainModuleSettings): void {
  settings = s;
  tables.clear();
  rules = Object.freeze(
    s.params.distributeFees ? { burnBaseFee: false, feeRecipient: FEE_COLLECTOR } : { burnBaseFee: false },
  );
}

/** The configured settings (undefined before an app opened). */
export function chainModuleSettings(): ChainModuleSettings | undefined {
  return settings;
}

/** The fork's precompiles and, once configured, the modules' stateful ones. */
export function chainPrecompiles(fork: Fork): ReadonlyMap<Address, Precompile> {
  const base = precompilesFor(fork);
  if (settings === undefined) return base;
  let t = tables.get(fork);
  if (t === undefined) {
    const m = new Map<Address, Precompile>(base);
    m.set(BECH32_ADDRESS, bech32Precompile(settings));
    m.set(STAKING_ADDRESS, stakingPrecompile(settings));
    m.set(DISTRIBUTION_ADDRESS, distributionPrecompile(settings));
    m.set(BANK_ADDRESS, bankPrecompile(settings, settings.genesisSupply));
    m.set(SLASHING_ADDRESS, slashingPrecompile(settings));
    t = m;
    tables.set(fork, t);
  }
  return t;
}

/** The chain's fee rule: the whole fee to the coinbase, or to the fee collector when fees are distributed. */
export function chainRules(): ChainRules {
  return rules;
}
