// One ExecTxResult per tx of a finalized block. code, data, gas_wanted and gas_used are hashed into the next
// header (LastResultsHash), so they depend on nothing but the block and the state: an EVM revert is code 0 with
// the receipt's gas (as on Ethereum, the tx is mined and pays); a tx the block builder could not include at all
// (bad nonce, no funds, undecodable) gets a non-zero code, no gas, and no Ethereum receipt.
import type { ExecTxResult, Event } from 'cosmjs-types/tendermint/abci/types';
import type { FinalizeResult } from '../../app/app.ts';
import type { ExecTx } from '../../app/evm/executor.ts';
import { abciCode } from '../../abci/codes.ts';
import { TxRejectedError } from '../../errors/index.ts';
import { bytesEqual, bytesToHex } from '../../primitives/hex.ts';

/** A tx of the block: decoded, or the reason it could not be. */
export type BlockTx = { item: ExecTx } | { error: Error };

function failed(err: Error, gasWanted: bigint): ExecTxResult {
  // The decoder and the engine give every refusal a typed reason; anything else is a fault of Kestrel's own, code 18.
  const rejection = err instanceof TxRejectedError ? err : new TxRejectedError('other', err.message);
  const { code, codespace, log } = abciCode(rejection);
  // ethereumjs appends a dump of the VM state to its messages: keep the reason only.
  return {
    code,
    codespace,
    log: log.replace(/\s*\(vm hf=[\s\S]*$/, '').slice(0, 500),
    data: new Uint8Array(0),
    info: '',
    gasWanted,
    gasUsed: 0n,
    events: [],
  };
}

function ethereumTxEvent(hash: Uint8Array, index: number, gasUsed: bigint, reverted: boolean): Event {
  const attributes = [
    // Indexed, so CometBFT's tx_search "ethereum_tx.ethereumTxHash='0x…'" finds the tx (as with Ethermint).
    { key: 'ethereumTxHash', value: bytesToHex(hash), index: true },
    { key: 'txIndex', value: String(index), index: true },
    { key: 'txGasUsed', value: gasUsed.toString(), index: false },
  ];
  if (reverted) attributes.push({ key: 'ethereumTxFailed', value: 'execution reverted', index: false });
  return { type: 'ethereum_tx', attributes };
}

/** The results of `txs` (in block order) given what execution included and rejected. */
export function execTxResults(txs: BlockTx[], res: FinalizeResult): ExecTxResult[] {
  const { block, receipts, rejected } = res;
  let inc = 0;
  let rej = 0;
  return txs.map((t) => {
    if ('error' in t) return failed(t.error, 0n);
    const { item } = t;
    // Execution keeps block order in both lists, so walking them in step matches duplicates correctly too.
    if (inc < block.txHashes.length && bytesEqual(block.txHashes[inc]!, item.hash)) {
      const receipt = receipts[inc]!;
      const index = inc++;
      return {
        code: 0,
        codespace: '',
        log: '',
        info: '',
        data: new Uint8Array(0),
        gasWanted: item.tx.gasLimit,
        gasUsed: receipt.gasUsed,
        events: [ethereumTxEvent(item.hash, index, receipt.gasUsed, receipt.status === 0)],
      };
    }
    const r = rejected[rej];
    if (!r || !bytesEqual(r.hash, item.hash)) throw new Error(`execution lost track of tx ${bytesToHex(item.hash)}`);
    rej++;
    return failed(r.error, item.tx.gasLimit);
  });
}
