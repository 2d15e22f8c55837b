// prestateTracer: every account and slot the transaction touched, as it was before (and, in diffMode, what
// changed after), following geth's native prestateTracer.
import { generateAddress, generateAddress2 } from '@ethereumjs/util';
import { keccak256 } from '../primitives/hash.ts';
import { bareHex, bigintToBytes, bytesEqual } from '../primitives/hex.ts';
import type { SyncState } from './syncState.ts';
import type { PrestateAccount, PrestateMap, StepEvent, Tracer, TraceResult, TxEnv } from './types.ts';

/** prestateTracer's options. */
export interface PrestateConfig {
  diffMode: boolean;
  disableCode: boolean;
  disableStorage: boolean;
}

const OP = {
  SLOAD: 0x54,
  SSTORE: 0x55,
  BALANCE: 0x31,
  EXTCODESIZE: 0x3b,
  EXTCODECOPY: 0x3c,
  EXTCODEHASH: 0x3f,
  SELFDESTRUCT: 0xff,
  CALL: 0xf1,
  CALLCODE: 0xf2,
  DELEGATECALL: 0xf4,
  STATICCALL: 0xfa,
  CREATE: 0xf0,
  CREATE2: 0xf5,
};
const ZERO32 = new Uint8Array(32);

function addrOf(n: bigint): Uint8Array {
  const b = bigintToBytes(n & ((1n << 160n) - 1n));
  const out = new Uint8Array(20);
  out.set(b, 20 - b.length);
  return out;
}
function word(n: bigint): Uint8Array {
  const b = bigintToBytes(n);
  const out = new Uint8Array(32);
  out.set(b, 32 - b.length);
  return out;
}

interface Entry {
  addr: Uint8Array;
  acc: PrestateAccount;
  /** The account did not exist when first seen. */
  empty: boolean;
  storage: Map<string, [Uint8Array, Uint8Array]>;
}

/** geth's prestateTracer (with diffMode). */
export class PrestateTracer implements Tracer {
  private readonly pre = new Map<string, Entry>();
  private readonly created = new Set<string>();
  private state?: SyncState;
  private resultValue?: TraceResult;

  constructor(private readonly cfg: PrestateConfig) {}

  private lookupAccount(addr: Uint8Array): Entry {
    const key = bareHex(addr);
    const seen = this.pre.get(key);
    if (seen) return seen;
    const a = this.state!.account(addr);
    const acc: PrestateAccount = { balance: a?.balance ?? 0n, nonce: a?.nonce ?? 0n };
    if (!this.cfg.disableCode) {
      const code = this.state!.code(addr);
      if (code.length > 0) {
        acc.code = code;
        acc.codeHash = keccak256(code);
      }
    }
    const entry: Entry = { addr, acc, empty: a === undefined, storage: new Map() };
    this.pre.set(key, entry);
    return entry;
  }

  private lookupSlot(addr: Uint8Array, slot: Uint8Array): void {
    if (this.cfg.disableStorage) return;
    const entry = this.lookupAccount(addr);
    const k = bareHex(slot);
    if (!entry.storage.has(k)) entry.storage.set(k, [slot, this.state!.storage(addr, slot)]);
  }

  /** Records sender, recipient (or the created contract) and coinbase before anything changes. */
  txStart(env: TxEnv): void {
    this.state = env.state;
    this.lookupAccount(env.from);
    this.lookupAccount(env.coinbase);
    if (env.to) {
      this.lookupAccount(env.to);
    } else {
      const nonce = env.state.account(env.from)?.nonce ?? 0n;
      const created = generateAddress(env.from, bigintToBytes(nonce));
      this.created.add(bareHex(created));
      this.lookupAccount(created);
    }
  }

  /** A stateful precompile's account or slot, recorded as an opcode's would be. */
  stateAccess(address: Uint8Array, slot?: Uint8Array): void {
    if (slot === undefined) this.lookupAccount(address);
    else this.lookupSlot(address, slot);
  }

  /** Looks up what each opcode is about to read or change. */
  step(s: StepEvent): void {
    const n = s.stackLength;
    const self = s.frame.self;
    switch (s.op) {
      case OP.SLOAD:
      case OP.SSTORE:
        if (n >= 1) this.lookupSlot(self, word(s.peek(0)));
        break;
      case OP.BALANCE:
      case OP.EXTCODESIZE:
      case OP.EXTCODECOPY:
      case OP.EXTCODEHASH:
      case OP.SELFDESTRUCT:
        if (n >= 1) this.lookupAccount(addrOf(s.peek(0)));
        break;
      case OP.CALL:
      case OP.CALLCODE:
      case OP.DELEGATECALL:
      case OP.STATICCALL:
        if (n >= 2) this.lookupAccount(addrOf(s.peek(1)));
        break;
      case OP.CREATE: {
        const nonce = this.state!.account(self)?.nonce ?? 0n;
        const addr = generateAddress(self, bigintToBytes(nonce));
        this.created.add(bareHex(addr));
        this.lookupAccount(addr);
        break;
      }
      case OP.CREATE2: {
        if (n < 4) break;
        const offset = s.peek(1);
        const size = s.peek(2);
        if (offset + size > BigInt(s.memoryLength)) break; // would fail: memory expansion is not paid yet
        const init = s.memorySlice(Number(offset), Number(size));
        const addr = generateAddress2(self, word(s.peek(3)), init);
        this.created.add(bareHex(addr));
        this.lookupAccount(addr);
        break;
      }
    }
  }

  /** Builds the result once the state holds the transaction's effects. */
  txEnd(): void {
    const pre: PrestateMap = new Map();
    const post: PrestateMap = new Map();
    for (const [key, e] of this.pre) {
      const acc: PrestateAccount = { ...e.acc };
      const storage = new Map(e.storage);
      let keep = true;
      if (this.cfg.diffMode) keep = this.diff(e, storage, post);
      // A contract this transaction created did not exist before it.
      if (!keep || (this.created.has(key) && e.empty)) continue;
      if (storage.size) acc.storage = storage;
      pre.set(key, [e.addr, acc]);
    }
    this.resultValue = this.cfg.diffMode
      ? { kind: 'prestateDiff', value: { pre, post } }
      : { kind: 'prestate', value: pre };
  }

  /**
   * Adds what changed about `e` to `post` and prunes unchanged slots from `storage` (its pre-state copy).
   * Returns false when the account did not change at all (then it is left out of pre as well).
   */
  private diff(e: Entry, storage: Map<string, [Uint8Array, Uint8Array]>, post: PrestateMap): boolean {
    const now = this.state!.account(e.addr);
    if (now === undefined && !e.empty) return true; // destroyed: kept in pre, absent from post
    const changed: PrestateAccount = {};
    let modified = false;
    if ((now?.balance ?? 0n) !== e.acc.balance) [changed.balance, modified] = [now?.balance ?? 0n, true];
    if ((now?.nonce ?? 0n) !== e.acc.nonce) [changed.nonce, modified] = [now?.nonce ?? 0n, true];
    if (!this.cfg.disableCode) {
      const code = this.state!.code(e.addr);
      if (!bytesEqual(code, e.acc.code ?? new Uint8Array(0))) {
        modified = true;
        changed.code = code;
        changed.codeHash = keccak256(code);
      }
    }
    const postSlots = new Map<string, [Uint8Array, Uint8Array]>();
    for (const [k, [slot, before]] of e.storage) {
      const after = this.state!.storage(e.addr, slot);
      if (bytesEqual(before, after)) {
        storage.delete(k);
        continue;
      }
      modified = true;
      if (bytesEqual(before, ZERO32)) storage.delete(k);
      if (!bytesEqual(after, ZERO32)) postSlots.set(k, [slot, after]);
    }
    if (!modified) return false;
    if (postSlots.size) changed.storage = postSlots;
    post.set(bareHex(e.addr), [e.addr, changed]);
    return true;
  }

  /** The pre-state map, or {pre, post} in diffMode. */
  result(): TraceResult {
    return this.resultValue ?? { kind: 'prestate', value: new Map() };
  }
}
