// The BLOCKHASH opcode's view of the chain: hashes of earlier canonical blocks.
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';

/** Adapts a number → hash lookup to the EVM's blockchain interface. */
export function blockHashSource(hashOf: (n: bigint) => Uint8Array | undefined): EVMMockBlockchainInterface {
  const source: EVMMockBlockchainInterface = {
    async getBlock(n: number) {
      const h = hashOf(BigInt(n)) ?? new Uint8Array(32);
      return { hash: () => h };
    },
    async putBlock() {},
    shallowCopy: () => source,
  };
  return source;
}
