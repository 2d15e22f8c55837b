// WebSocket subscriptions (eth_subscribe): newHeads, logs, newPendingTransactions, syncing. Each lives as long as
// its connection. A consumer that does not read is bounded: once its connection holds more than
// maxBufferedBytes of unsent data, the subscription being fed is dropped with an error notification, so one
// slow client cannot grow the node's memory. Pending txs are pushed when they enter the pool.
import type { CheckedTx, CommittedBlock } from '../app/app.ts';
import type { BlockRecord } from '../store/records.ts';
import { LimitExceededError } from '../errors/index.ts';
import type { LogCriteria } from './criteria.ts';
import { inBounds, matchesLog } from './criteria.ts';
import { newId } from './ids.ts';
import type { LogEntry } from './logQuery.ts';

/** The part of a WebSocket connection a subscription needs (structurally the transport's WsConnection). */
export interface PushChannel {
  readonly id: number;
  send(message: object): void;
  onClose(fn: () => void): void;
  /** Bytes queued on the socket and not yet handed to the OS. */
  bufferedAmount(): number;
}

/** A decoded eth_subscribe request. */
export type SubscriptionRequest =
  | { kind: 'newHeads' }
  | { kind: 'logs'; criteria: LogCriteria }
  | { kind: 'newPendingTransactions'; fullTx: boolean }
  | { kind: 'syncing' };

/** Turns domain events into notification results (wire formatting lives in the RPC layer). */
export interface NotificationFormat {
  head(b: BlockRecord): unknown;
  log(e: LogEntry): unknown;
  pendingTx(tx: CheckedTx, full: boolean): unknown;
}

/** Limits of the subscription manager. */
export interface SubscriptionOptions {
  /** Most subscriptions one connection may hold (0 = unlimited). */
  maxPerConnection: number;
  /** Unsent bytes a connection may hold before the subscription being fed is dropped. */
  maxBufferedBytes: number;
}

interface Sub {
  id: string;
  channel: PushChannel;
  req: SubscriptionRequest;
}

/** Live subscriptions, grouped by what they listen to. */
export class SubscriptionManager {
  private readonly subs = new Map<string, Sub>();
  private readonly byChannel = new Map<number, Set<string>>();
  private readonly heads = new Set<Sub>();
  private readonly logs = new Set<Sub>();
  private readonly pending = new Set<Sub>();
  /** Counters for operators and tests. */
  readonly stats = { delivered: 0, dropped: 0 };

  constructor(
    private readonly format: NotificationFormat,
    private readonly opts: SubscriptionOptions,
  ) {}

  /** Number of live subscriptions. */
  get size(): number {
    return this.subs.size;
  }

  /** Creates a subscription on `channel`; returns its id. */
  subscribe(channel: PushChannel, req: SubscriptionRequest): string {
    let mine = this.byChannel.get(channel.id);
    if (!mine) {
      mine = new Set();
      this.byChannel.set(channel.id, mine);
      channel.onClose(() => this.closeChannel(channel.id));
    }
    if (this.opts.maxPerConnection > 0 && mine.size >= this.opts.maxPerConnection) {
      throw new LimitExceededError(`too many subscriptions on this connection (max ${this.opts.maxPerConnection})`);
    }
    const sub: Sub = { id: newId(), channel, req };
    this.subs.set(sub.id, sub);
    mine.add(sub.id);
    this.group(req)?.add(sub);
    return sub.id;
  }

  /** Ends a subscription of this channel; false when the id is unknown or belongs to another connection. */
  unsubscribe(channel: PushChannel, id: string): boolean {
    const sub = this.subs.get(id);
    if (!sub || sub.channel.id !== channel.id) return false;
    this.remove(sub);
    return true;
  }

  /** Delivers a committed block: its header to newHeads, its matching logs (one notification each) to logs. */
  onBlock(c: CommittedBlock, entries: LogEntry[]): void {
    if (this.heads.size > 0) {
      const head = this.format.head(c.block);
      for (const sub of this.heads) this.deliver(sub, head);
    }
    if (this.logs.size > 0 && entries.length > 0) {
      const formatted = new Map<LogEntry, unknown>();
      for (const sub of this.logs) {
        const crit = (sub.req as { criteria: LogCriteria }).criteria;
        for (const e of entries) {
          if (!inBounds(crit, e.blockNumber) || !matchesLog(crit, e.log)) continue;
          let result = formatted.get(e);
          if (result === undefined) {
            result = this.format.log(e);
            formatted.set(e, result);
          }
          if (!this.deliver(sub, result)) break;
        }
      }
    }
  }

  /** Delivers a tx that entered the pool to newPendingTransactions subscribers. */
  onPendingTx(tx: CheckedTx): void {
    let hashOnly: unknown;
    let full: unknown;
    for (const sub of this.pending) {
      const wantFull = (sub.req as { fullTx: boolean }).fullTx;
      const result = wantFull
        ? (full ??= this.format.pendingTx(tx, true))
        : (hashOnly ??= this.format.pendingTx(tx, false));
      this.deliver(sub, result);
    }
  }

  /** Sends one notification, or drops the subscription when its connection is not keeping up. */
  private deliver(sub: Sub, result: unknown): boolean {
    if (!this.subs.has(sub.id)) return false;
    if (sub.channel.bufferedAmount() > this.opts.maxBufferedBytes) {
      this.remove(sub);
      this.stats.dropped++;
      sub.channel.send({
        jsonrpc: '2.0',
        method: 'eth_subscription',
        params: {
          subscription: sub.id,
          error: {
            code: -32000,
            message: `subscription dropped: the client is not reading (more than ${this.opts.maxBufferedBytes} bytes pending)`,
          },
        },
      });
      return false;
    }
    sub.channel.send({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: sub.id, result } });
    this.stats.delivered++;
    return true;
  }

  private group(req: SubscriptionRequest): Set<Sub> | undefined {
    switch (req.kind) {
      case 'newHeads':
        return this.heads;
      case 'logs':
        return this.logs;
      case 'newPendingTransactions':
        return this.pending;
      case 'syncing':
        return undefined; // a solo chain never syncs, so there is never a status change to report
    }
  }

  private remove(sub: Sub): void {
    this.subs.delete(sub.id);
    this.group(sub.req)?.delete(sub);
    this.byChannel.get(sub.channel.id)?.delete(sub.id);
  }

  private closeChannel(channelId: number): void {
    for (const id of this.byChannel.get(channelId) ?? []) {
      const sub = this.subs.get(id);
      if (sub) {
        this.subs.delete(id);
        this.group(sub.req)?.delete(sub);
      }
    }
    this.byChannel.delete(channelId);
  }
}
