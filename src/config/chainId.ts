// Cosmos chain-ids of the form <name>_<evmId>-<epoch> carry the EIP-155 chain id (Ethermint's rule).

const CHAIN_ID_RE = /^[a-z]{1,}_([1-9][0-9]*)-([1-9][0-9]*)$/;

/** Extracts the EIP-155 chain id from a Cosmos chain-id such as kestrel_9000-1. */
export function parseEvmChainId(chainId: string): bigint {
  const m = CHAIN_ID_RE.exec(chainId);
  if (!m || chainId.length > 48) {
    throw new Error(`invalid chain-id "${chainId}": expected <name>_<EIP155 number>-<epoch>, e.g. kestrel_9000-1`);
  }
  return BigInt(m[1]!);
}
