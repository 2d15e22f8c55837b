// Messages between the node and a tracer worker, and the wire form of a block (transactions and header as their
// RLP, so the worker rebuilds them with its own Common).
import { createBlockHeaderFromRLP } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { MessagePort } from 'node:worker_threads';
import type { Fork } from '../../evm/index.ts';
import type { BlockRecord } from '../../store/records.ts';
import type { CallRequest } from '../../primitives/callRequest.ts';
import type { CallOverrides } from '../../primitives/overrides.ts';
import type { SandboxLimits } from '../js/limits.ts';
import { decodeTransaction } from '../../primitives/tx/decode.ts';
import { encodeTx } from '../../primitives/tx/encode.ts';

/** A block as it crosses to a worker. */
export interface WireBlock {
  header: Uint8Array;
  hash: Uint8Array;
  number: bigint;
  txs: Uint8Array[];
  txHashes: Uint8Array[];
  senders: Uint8Array[];
  size: bigint;
}

/** The wire form of a block. */
export function toWire(b: BlockRecord): WireBlock {
  return {
    header: b.header.serialize(),
    hash: b.hash,
    number: b.number,
    txs: b.txs.map(encodeTx),
    txHashes: b.txHashes,
    senders: b.senders,
    size: b.size,
  };
}

/** Rebuilds a block from its wire form. */
export function fromWire(w: WireBlock, common: Common): BlockRecord {
  return {
    header: createBlockHeaderFromRLP(w.header, { common, setHardfork: false }),
    hash: w.hash,
    number: w.number,
    txs: w.txs.map((t) => decodeTransaction(t).tx),
    txHashes: w.txHashes,
    senders: w.senders,
    size: w.size,
  };
}

/** The JavaScript tracer to run and its limits. */
export interface JsTraceSpec {
  source: string;
  tracerConfig: Record<string, unknown>;
  timeoutMs: number;
}

/** Trace one mined transaction (replaying its block's earlier ones first), or one call on a block's state. */
export type JobBody =
  | { type: 'tx'; block: WireBlock; parentRoot: Uint8Array; index: number; spec: JsTraceSpec }
  | { type: 'call'; req: CallRequest; block: WireBlock; spec: JsTraceSpec; overrides?: CallOverrides };

/** A job as sent: the body plus its id. */
export type Job = JobBody & { id: number };

/**
 * How a failed job failed: over the output budget, another trace abort (timeout, tracer error), an execution error,
 * or anything else.
 */
export type FailureKind = 'outputCap' | 'abort' | 'execution' | 'other';

/** Worker → node. `armed` comes when the traced transaction starts, with its deadline (epoch ms). */
export type Reply =
  | { type: 'ready' }
  | { type: 'armed'; id: number; deadline: number }
  | { type: 'done'; id: number; value: unknown }
  | { type: 'failed'; id: number; kind: FailureKind; message: string };

/** A synchronous read the worker asks the node for. */
export type ReadRequest = { kind: 'node'; key: Uint8Array } | { kind: 'hash'; n: bigint };

/** The node's answer: the bytes (null when absent) or an error text. */
export type ReadReply = { value: Uint8Array | null } | { error: string };

/** What a worker starts with. */
export interface WorkerInit {
  evmChainId: bigint;
  /** The chain's fork (its Common is rebuilt in the worker). */
  fork: Fork;
  gasCap: bigint;
  sandbox: SandboxLimits;
  /** The port state reads go through (see readBridge.ts). */
  reads: MessagePort;
  /** Int32 flag the node sets when a read's answer is posted. */
  signal: SharedArrayBuffer;
}
