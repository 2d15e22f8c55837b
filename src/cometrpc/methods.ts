// The CometBFT RPC methods Kestrel serves in solo mode (CometBFT v0.38 rpc/core): status, health, abci_info,
// abci_query, block, broadcast_tx_sync. Thin adapters: decode args, call the node, format.
import type { BlockRecord, ReceiptRecord } from '../store/records.ts';
import { abciCode } from '../abci/codes.ts';
import { InvalidParamsError, KestrelError, TxRejectedError } from '../errors/index.ts';
import { base64, BLOCK_PROTOCOL, blockTime, COMET_RPC_VERSION, formatBlockResult, hexUpper, txHash } from './format.ts';
import type { ArgSpec, Args } from './params.ts';

/** What the CometBFT RPC needs from the node. */
export interface CometDeps {
  chainId: string;
  moniker: string;
  version: string;
  /** The listen address as configured (tcp://host:port), reported in node_info.other.rpc_address. */
  rpcAddress: string;
  /** A stable 20-byte node id (the validator address: there are no p2p keys in solo mode). */
  nodeId: Uint8Array;
  validator: { address: Uint8Array; pubKey: Uint8Array; votingPower: bigint };
  head(): BlockRecord;
  blockByNumber(n: bigint): BlockRecord | undefined;
  /** The app hash after a block (commits to the state root and the bank root). */
  appHash(block: BlockRecord): Uint8Array;
  /** The app's query at a height (never 0 here). */
  query(path: string, data: Uint8Array, height: bigint): Promise<Uint8Array>;
  /** CheckTx + mempool; throws TxRejectedError with geth's message. */
  submitTx(raw: Uint8Array): Promise<void>;
  /** A mined tx by its CometBFT hash (SHA-256 of its bytes). */
  txByCometHash(sha: Uint8Array): { block: BlockRecord; index: number } | undefined;
  /** The receipts of a stored block. */
  receipts(block: BlockRecord): ReceiptRecord[];
  /** Calls `fn` after every committed block (the /websocket events). */
  onBlock(fn: (block: BlockRecord, receipts: ReceiptRecord[]) => void): void;
}

/** A method: its argument spec and handler. */
export interface CometMethod {
  args: ArgSpec;
  handler(deps: CometDeps, args: Args): Promise<unknown>;
}

/** Error with CometBFT's JSON-RPC code -32603 and the reason in `data` (how CometBFT reports handler errors). */
export class CometInternalError extends KestrelError {
  override name = 'CometInternalError';
}

function block(deps: CometDeps, height: bigint | undefined): BlockRecord {
  const head = deps.head();
  if (height === undefined) return head;
  // Kestrel's chain starts at block 0 (genesis), so 0 is a real height here, unlike in CometBFT.
  if (height < 0n) throw new CometInternalError(`height must be greater than or equal to 0, but got ${height}`);
  if (height > head.number) {
    throw new CometInternalError(
      `height ${height} must be less than or equal to the current blockchain height ${head.number}`,
    );
  }
  const b = deps.blockByNumber(height);
  if (!b) throw new CometInternalError(`height ${height} is not available`);
  return b;
}

/** The method table; wire names written out. */
export const cometMethods: Record<string, CometMethod> = {
  health: { args: [], handler: async () => ({}) },

  status: {
    args: [],
    handler: async (deps) => {
      const head = deps.head();
      const genesis = deps.blockByNumber(0n) ?? head;
      return {
        node_info: {
          protocol_version: { p2p: '8', block: BLOCK_PROTOCOL, app: '0' },
          id: hexUpper(deps.nodeId).toLowerCase(),
          listen_addr: deps.rpcAddress,
          network: deps.chainId,
          version: COMET_RPC_VERSION,
          channels: '',
          moniker: deps.moniker,
          other: { tx_index: 'on', rpc_address: deps.rpcAddress },
        },
        sync_info: {
          latest_block_hash: hexUpper(head.hash),
          latest_app_hash: hexUpper(deps.appHash(head)),
          latest_block_height: head.number.toString(),
          latest_block_time: blockTime(head),
          earliest_block_hash: hexUpper(genesis.hash),
          earliest_app_hash: hexUpper(deps.appHash(genesis)),
          earliest_block_height: genesis.number.toString(),
          earliest_block_time: blockTime(genesis),
          catching_up: false,
        },
        validator_info: {
          address: hexUpper(deps.validator.address),
          pub_key: { type: 'tendermint/PubKeySecp256k1', value: base64(deps.validator.pubKey) },
          voting_power: deps.validator.votingPower.toString(),
        },
      };
    },
  },

  abci_info: {
    args: [],
    handler: async (deps) => {
      const head = deps.head();
      return {
        response: {
          data: 'kestrel',
          version: deps.version,
          app_version: '0',
          last_block_height: head.number.toString(),
          last_block_app_hash: base64(deps.appHash(head)),
        },
      };
    },
  },

  abci_query: {
    args: [
      ['path', 'string'],
      ['data', 'hexBytes'],
      ['height', 'int'],
      ['prove', 'bool'],
    ],
    handler: async (deps, a) => {
      const path = (a.path as string | undefined) ?? '';
      const data = (a.data as Uint8Array | undefined) ?? new Uint8Array(0);
      const asked = (a.height as bigint | undefined) ?? 0n;
      const fail = (e: unknown, height: bigint) => {
        const { codespace, code, log } = abciCode(e);
        if (code === 1) console.error(`abci_query ${path} failed:`, e);
        return {
          response: {
            code,
            log,
            info: '',
            index: '0',
            key: null,
            value: null,
            proofOps: null,
            height: height.toString(),
            codespace,
          },
        };
      };
      if (asked < 0n)
        return fail(new InvalidParamsError('cannot query with height < 0; please provide a valid height'), asked);
      const height = asked === 0n ? deps.head().number : asked;
      try {
        const value = await deps.query(path, data, height);
        return {
          response: {
            code: 0,
            log: '',
            info: '',
            index: '0',
            key: null,
            value: base64(value),
            proofOps: null,
            height: height.toString(),
            codespace: '',
          },
        };
      } catch (e) {
        return fail(e, height);
      }
    },
  },

  block: {
    args: [['height', 'int']],
    handler: async (deps, a) => {
      const b = block(deps, a.height as bigint | undefined);
      const parent = b.number > 0n ? deps.blockByNumber(b.number - 1n) : undefined;
      return formatBlockResult(b, { chainId: deps.chainId, parent, appHash: deps.appHash(parent ?? b) });
    },
  },

  broadcast_tx_sync: {
    args: [['tx', 'base64Bytes']],
    handler: async (deps, a) => {
      const tx = a.tx as Uint8Array | undefined;
      if (tx === undefined || tx.length === 0) throw new CometInternalError('tx is empty');
      const hash = txHash(tx);
      try {
        await deps.submitTx(tx);
        return { code: 0, data: '', log: '', codespace: '', hash };
      } catch (e) {
        // CometBFT's mempool cache answers a duplicate with an RPC error, not a CheckTx code.
        if (e instanceof TxRejectedError && e.reason === 'alreadyKnown')
          throw new CometInternalError('tx already exists in cache');
        if (!(e instanceof TxRejectedError)) throw e;
        const { codespace, code, log } = abciCode(e);
        return { code, data: '', log, codespace, hash };
      }
    },
  },
};
