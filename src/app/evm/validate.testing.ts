// The admission rules the unit tests' chain runs under, in one place, so a test names only the field it changes.
import type { AdmissionRules } from './validate.ts';

/** The test chain's rules: chain id 9000, Prague, a 30M block gas limit, a 1 gwei base fee, no minimum price. */
export function testRules(over: Partial<AdmissionRules> = {}): AdmissionRules {
  return {
    evmChainId: 9000n,
    blockGasLimit: 30_000_000n,
    baseFee: 1_000_000_000n,
    minGasPrice: 0n,
    fork: 'Prague',
    ...over,
  };
}
