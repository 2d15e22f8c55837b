// CometBFT v0.38 RPC methods over the chain's history: validators, blockchain, tx and tx_search. A tx's result is
// its Ethereum receipt in CometBFT's shape: code 0 (an included tx is valid; a revert shows as the
// `ethereumTxFailed` attribute, as Ethermint reports it), gas wanted/used, and an `ethereum_tx` event.
import type { BlockRecord, ReceiptRecord } from '../store/records.ts';
import { InvalidParamsError } from '../errors/index.ts';
import { bytesToHex } from '../primitives/hex.ts';
import { base64, formatBlockMeta, hexUpper, txHash } from './format.ts';
import { CometInternalError, type CometDeps, type CometMethod } from './methods.ts';
import { encodeTx } from '../primitives/tx/encode.ts';

/** CometBFT's page size limits (rpc/core/env.go). */
const DEFAULT_PER_PAGE = 30;
const MAX_PER_PAGE = 100;
/** blockchain returns at most this many block metas (rpc/core/blocks.go). */
const MAX_BLOCKCHAIN_METAS = 20n;

/** The ABCI ExecTxResult of a block's `index`-th tx. */
export function txResultOf(block: BlockRecord, receipts: ReceiptRecord[], index: number) {
  const r = receipts[index]!;
  const attributes = [
    { key: 'ethereumTxHash', value: bytesToHex(block.txHashes[index]!), index: true },
    { key: 'txIndex', value: String(index), index: true },
    { key: 'txGasUsed', value: r.gasUsed.toString(), index: true },
  ];
  if (r.to) attributes.push({ key: 'recipient', value: bytesToHex(r.to), index: true });
  if (r.status === 0) attributes.push({ key: 'ethereumTxFailed', value: 'execution reverted', index: true });
  return {
    code: 0,
    data: '',
    log: '',
    info: '',
    gas_wanted: block.txs[index]!.gasLimit.toString(),
    gas_used: r.gasUsed.toString(),
    events: [{ type: 'ethereum_tx', attributes }],
    codespace: '',
  };
}

/** The `tx` result (also each entry of tx_search). */
export function txResponse(block: BlockRecord, receipts: ReceiptRecord[], index: number) {
  const raw = encodeTx(block.txs[index]!);
  return {
    hash: txHash(raw),
    height: block.number.toString(),
    index,
    tx_result: txResultOf(block, receipts, index),
    tx: base64(raw),
  };
}

function positive(v: bigint | undefined, fallback: number, name: string): number {
  if (v === undefined) return fallback;
  if (v <= 0n) throw new CometInternalError(`${name} must be greater than 0, but got ${v}`);
  return Number(v > 1_000_000n ? 1_000_000n : v);
}

/** One `key=value` condition of a tx_search query, the only form served here. */
interface Condition {
  key: string;
  value: string;
}

/** Parses `tx.hash='…'` / `tx.height=5` conditions joined by AND; other operators and keys are refused. */
export function parseConditions(query: string): Condition[] {
  const parts = query.split(/\s+AND\s+/i).map((p) => p.trim());
  return parts.map((p) => {
    const m = /^([A-Za-z0-9_.]+)\s*=\s*(?:'([^']*)'|(\d+))$/.exec(p);
    if (!m)
      throw new CometInternalError(`unsupported query condition "${p}": only key='value' and key=number are served`);
    return { key: m[1]!, value: m[2] ?? m[3]! };
  });
}

function txsMatching(deps: CometDeps, query: string): Array<{ block: BlockRecord; index: number }> {
  const conds = parseConditions(query);
  let out: Array<{ block: BlockRecord; index: number }> | undefined;
  const narrow = (found: Array<{ block: BlockRecord; index: number }>) => {
    out =
      out === undefined
        ? found
        : out.filter((a) => found.some((b) => b.block.number === a.block.number && b.index === a.index));
  };
  for (const c of conds) {
    if (c.key === 'tx.hash') {
      if (!/^[0-9A-Fa-f]{64}$/.test(c.value)) throw new CometInternalError(`invalid tx.hash "${c.value}"`);
      const hit = deps.txByCometHash(Uint8Array.from(Buffer.from(c.value, 'hex')));
      narrow(hit ? [hit] : []);
    } else if (c.key === 'tx.height') {
      const b = deps.blockByNumber(BigInt(c.value));
      narrow(b ? b.txs.map((_, index) => ({ block: b, index })) : []);
    } else {
      throw new CometInternalError(`unsupported query key "${c.key}": tx.hash and tx.height are served`);
    }
  }
  return out ?? [];
}

/** The methods, by wire name. */
export const chainMethods: Record<string, CometMethod> = {
  validators: {
    args: [
      ['height', 'int'],
      ['page', 'int'],
      ['per_page', 'int'],
    ],
    handler: async (deps, a) => {
      const head = deps.head().number;
      const height = (a.height as bigint | undefined) ?? head;
      if (height < 1n || height > head) {
        throw new CometInternalError(
          `height ${height} must be less than or equal to the current blockchain height ${head}`,
        );
      }
      const v = deps.validator;
      return {
        block_height: height.toString(),
        validators: [
          {
            address: hexUpper(v.address),
            pub_key: { type: 'tendermint/PubKeySecp256k1', value: base64(v.pubKey) },
            voting_power: v.votingPower.toString(),
            proposer_priority: '0',
          },
        ],
        count: '1',
        total: '1',
      };
    },
  },

  blockchain: {
    args: [
      ['minHeight', 'int'],
      ['maxHeight', 'int'],
    ],
    handler: async (deps, a) => {
      const head = deps.head().number;
      let max = (a.maxHeight as bigint | undefined) ?? head;
      let min = (a.minHeight as bigint | undefined) ?? 1n;
      if (min < 0n || max < 0n) throw new CometInternalError('heights must be non-negative');
      if (max === 0n || max > head) max = head;
      if (min === 0n) min = 1n;
      if (min > max) throw new CometInternalError(`min height ${min} can't be greater than max height ${max}`);
      if (max - min + 1n > MAX_BLOCKCHAIN_METAS) min = max - MAX_BLOCKCHAIN_METAS + 1n;
      const metas = [];
      for (let n = max; n >= min; n--) {
        const b = deps.blockByNumber(n);
        if (!b) continue;
        const parent = deps.blockByNumber(n - 1n);
        metas.push(formatBlockMeta(b, { chainId: deps.chainId, parent, appHash: deps.appHash(parent ?? b) }));
      }
      return { last_height: head.toString(), block_metas: metas };
    },
  },

  tx: {
    args: [
      ['hash', 'base64Bytes'],
      ['prove', 'bool'],
    ],
    handler: async (deps, a) => {
      const hash = a.hash as Uint8Array | undefined;
      if (hash === undefined || hash.length !== 32)
        throw new InvalidParamsError('error converting json params to arguments: hash: want 32 bytes');
      const hit = deps.txByCometHash(hash);
      if (!hit) throw new CometInternalError(`tx (${hexUpper(hash)}) not found`);
      return txResponse(hit.block, deps.receipts(hit.block), hit.index);
    },
  },

  tx_search: {
    args: [
      ['query', 'string'],
      ['prove', 'bool'],
      ['page', 'int'],
      ['per_page', 'int'],
      ['order_by', 'string'],
    ],
    handler: async (deps, a) => {
      const query = a.query as string | undefined;
      if (query === undefined || query === '') throw new CometInternalError('query cannot be empty');
      const order = (a.order_by as string | undefined) ?? 'asc';
      if (order !== 'asc' && order !== 'desc' && order !== '') {
        throw new CometInternalError('expected order_by to be either `asc` or `desc` or empty');
      }
      const found = txsMatching(deps, query).sort((x, y) =>
        x.block.number === y.block.number ? x.index - y.index : x.block.number < y.block.number ? -1 : 1,
      );
      if (order === 'desc') found.reverse();
      const perPage = Math.min(positive(a.per_page as bigint | undefined, DEFAULT_PER_PAGE, 'per_page'), MAX_PER_PAGE);
      const pages = Math.max(1, Math.ceil(found.length / perPage));
      const page = positive(a.page as bigint | undefined, 1, 'page');
      if (page > pages) throw new CometInternalError(`page should be within [1, ${pages}] range, given ${page}`);
      const slice = found.slice((page - 1) * perPage, page * perPage);
      return {
        txs: slice.map(({ block, index }) => txResponse(block, deps.receipts(block), index)),
        total_count: String(found.length),
      };
    },
  },
};
