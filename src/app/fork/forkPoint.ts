// The upstream block a chain forks from, as the local chain needs it: its number and hash (the local chain's first
// block answers to them, so block N+1's parentHash is upstream's hash of N), the header fields the next block
// derives from (time, gas limit, base fee), the state root proofs are checked against, and the upstream's chain id.
import { UpstreamError } from '../../errors/index.ts';
import { bytesToHex, hexToBytes } from '../../primitives/hex.ts';

/** The fork block, decoded once. */
export interface ForkPoint {
  number: bigint;
  hash: Uint8Array;
  parentHash: Uint8Array;
  timestamp: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  /** Absent before London. */
  baseFee: bigint | undefined;
  stateRoot: Uint8Array;
  /** The upstream's EVM chain id (eth_chainId). */
  chainId: bigint;
}

/** The fork point as stored in the cache file's first line (hex strings). */
export type ForkPointJson = Record<'number' | 'hash' | 'parentHash' | 'timestamp' | 'gasLimit' | 'gasUsed', string> & {
  baseFeePerGas?: string;
  stateRoot: string;
  chainId: string;
};

const HASH = /^0x[0-9a-fA-F]{64}$/;
const QUANTITY = /^0x[0-9a-fA-F]{1,64}$/;

/** Decodes an upstream block (eth_getBlockByNumber, hashes only) and chain id; a malformed answer names the field. */
export function parseForkPoint(url: string, block: unknown, chainId: unknown): ForkPoint {
  if (block === null || typeof block !== 'object') {
    throw new UpstreamError('badResponse', url, 'the fork block does not exist upstream');
  }
  const b = block as Record<string, unknown>;
  const field = (name: string, re: RegExp): string => {
    const v = b[name];
    if (typeof v !== 'string' || !re.test(v)) {
      throw new UpstreamError('badResponse', url, `the fork block's ${name} is not valid`);
    }
    return v;
  };
  if (typeof chainId !== 'string' || !QUANTITY.test(chainId)) {
    throw new UpstreamError('badResponse', url, 'eth_chainId is not a quantity');
  }
  return {
    number: BigInt(field('number', QUANTITY)),
    hash: hexToBytes(field('hash', HASH)),
    parentHash: hexToBytes(field('parentHash', HASH)),
    timestamp: BigInt(field('timestamp', QUANTITY)),
    gasLimit: BigInt(field('gasLimit', QUANTITY)),
    gasUsed: BigInt(field('gasUsed', QUANTITY)),
    baseFee:
      b.baseFeePerGas === undefined || b.baseFeePerGas === null ? undefined : BigInt(field('baseFeePerGas', QUANTITY)),
    stateRoot: hexToBytes(field('stateRoot', HASH)),
    chainId: BigInt(chainId),
  };
}

const q = (n: bigint): string => '0x' + n.toString(16);

/** The fork point as JSON for the cache file. */
export function forkPointToJson(p: ForkPoint): ForkPointJson {
  return {
    number: q(p.number),
    hash: bytesToHex(p.hash),
    parentHash: bytesToHex(p.parentHash),
    timestamp: q(p.timestamp),
    gasLimit: q(p.gasLimit),
    gasUsed: q(p.gasUsed),
    ...(p.baseFee === undefined ? {} : { baseFeePerGas: q(p.baseFee) }),
    stateRoot: bytesToHex(p.stateRoot),
    chainId: q(p.chainId),
  };
}

/** The fork point read back from the cache file. */
export function forkPointFromJson(url: string, j: ForkPointJson): ForkPoint {
  return parseForkPoint(url, j, j.chainId);
}
