// The producer settings miner_* may change: kept in the home's app.toml so they survive a restart.
import { toChecksumAddress } from '@ethereumjs/util';
import { bytesToHex } from '../primitives/hex.ts';
import { persistEtherbase, persistMinGasPrice } from './appToml.ts';
import type { NodeConfig } from './schema.ts';

/** The miner_ namespace's service: the gas price floor (at the next start) and the etherbase (now). */
export interface MinerSettings {
  /** Writes minimum-gas-prices to app.toml; it applies at the next start. */
  setGasPrice(price: bigint): void;
  /** Sends the fees of the next blocks to addr and keeps it in app.toml [miner]. */
  setEtherbase(addr: Uint8Array): void;
}

/** MinerSettings kept in the app.toml at `appToml`; `setEtherbase` also applies the address to the running chain. */
export function appTomlMinerSettings(
  appToml: string,
  config: Pick<NodeConfig, 'evmDenom' | 'minGasPriceFromFlag'>,
  applyEtherbase: (addr: Uint8Array) => void,
): MinerSettings {
  return {
    setGasPrice(price) {
      const text = persistMinGasPrice(appToml, price, config.evmDenom);
      console.log(
        `miner_setGasPrice: app.toml minimum-gas-prices = "${text}". Your configuration file was modified. Please RESTART your node.`,
      );
      if (config.minGasPriceFromFlag) {
        console.warn(
          'miner_setGasPrice: this node was started with --minimum-gas-prices, which overrides app.toml; restart without the flag for the new price to apply',
        );
      }
    },
    setEtherbase(addr) {
      persistEtherbase(appToml, toChecksumAddress(bytesToHex(addr)));
      applyEtherbase(addr);
    },
  };
}
