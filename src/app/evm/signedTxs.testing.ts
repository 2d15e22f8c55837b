// Signed txs for the tests of sender recovery (the recovery workers, the CometBFT decode cache).
import { createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx';
import { createChainCommon } from './common.ts';
import { deriveAccounts, DEV_MNEMONIC, type DevAccount } from '../../keys/devAccounts.ts';

/** The Common the txs are signed for (EIP-155 id 9000). */
export const TEST_TX_COMMON = createChainCommon(9000n);

/** The four dev accounts that sign them. */
export const TX_SIGNERS: readonly DevAccount[] = deriveAccounts(DEV_MNEMONIC, 4);

/** `count` signed raw txs, legacy and 1559 in turn, from the four signers in turn (nonce = index, value = index). */
export function signedTestTxs(count: number): Uint8Array[] {
  return Array.from({ length: count }, (_, i) => {
    const a = TX_SIGNERS[i % 4]!;
    const data = { nonce: BigInt(i), gasLimit: 21_000n, to: TX_SIGNERS[(i + 1) % 4]!.address, value: BigInt(i) };
    return i % 2 === 0
      ? createLegacyTx({ ...data, gasPrice: 10n }, { common: TEST_TX_COMMON })
          .sign(a.privateKey)
          .serialize()
      : createFeeMarket1559Tx({ ...data, maxFeePerGas: 10n, maxPriorityFeePerGas: 1n }, { common: TEST_TX_COMMON })
          .sign(a.privateKey)
          .serialize();
  });
}
