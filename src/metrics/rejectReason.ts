// A bounded `reason` label for refused transactions. Admission errors carry geth's messages (clients match on
// them), and some messages hold values (a chain id, a decoder's detail); the label is the message's fixed part,
// from this closed table, so the number of series stays bounded whatever a client sends.
import { TxRejectedError } from '../errors/index.ts';

/** geth's admission messages (or their fixed leading part) → label. */
const REASONS: ReadonlyArray<readonly [prefix: string, label: string]> = [
  ['nonce too low', 'nonce_too_low'],
  ['nonce too high', 'nonce_too_high'],
  ['already known', 'already_known'],
  ['replacement transaction underpriced', 'replacement_underpriced'],
  ['transaction underpriced', 'underpriced'],
  ['max fee per gas less than block base fee', 'fee_cap_below_base_fee'],
  ['insufficient funds for gas * price + value', 'insufficient_funds'],
  ['intrinsic gas too low', 'intrinsic_gas_too_low'],
  ['insufficient gas for floor data gas cost', 'intrinsic_gas_too_low'],
  ['exceeds block gas limit', 'gas_limit_exceeded'],
  ['max priority fee per gas higher than max fee per gas', 'tip_above_fee_cap'],
  ['txpool is full', 'txpool_full'],
  ['account limit exceeded', 'account_limit_exceeded'],
  ['invalid chain id for signer', 'wrong_chain_id'],
  ['only replay-protected (EIP-155) transactions allowed over RPC', 'not_replay_protected'],
  ['invalid sender', 'invalid_signature'],
  ['oversized data', 'oversized'],
  ['rlp:', 'undecodable'],
  ['typed transaction too short', 'undecodable'],
  ['transaction type not supported', 'unsupported_type'],
  ['CometBFT refused the transaction', 'refused_by_cometbft'],
  ['CometBFT RPC', 'cometbft_unreachable'],
  ['transaction not accepted: the pool journal could not be written', 'journal_failed'],
];

/** The label of an admission error ("other" for anything outside the table, "internal" for non-rejections). */
export function rejectReason(e: unknown): string {
  if (!(e instanceof TxRejectedError)) return 'internal';
  for (const [prefix, label] of REASONS) if (e.message.startsWith(prefix)) return label;
  return 'other';
}
