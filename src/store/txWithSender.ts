// Transactions whose sender is known already (stored with the block, or impersonated by the dev toolkit): the
// sender is attached instead of recovered, which also spares the signature recovery when a block is replayed.
import type { Common } from '@ethereumjs/common';
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import { Address } from '@ethereumjs/util';

/** Decodes a tx's canonical encoding with `sender` attached (frozen afterwards, so its hash is cached as usual). */
export function withSender(encoded: Uint8Array, common: Common, sender: Uint8Array): TypedTransaction {
  const tx = createTxFromRLP(encoded, { common, freeze: false });
  const from = new Address(sender);
  (tx as unknown as { getSenderAddress: () => Address }).getSenderAddress = () => from;
  Object.freeze(tx);
  return tx;
}
