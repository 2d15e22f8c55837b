// Typed trace results → geth's JSON (the execution-apis shapes: 0x-prefixed words, decimal gas in struct logs,
// hex quantities in callTracer frames).
import { bytesToHex, toQuantity } from '../../../primitives/hex.ts';
import { formatParityTraces } from '../trace/format.ts';
import type { BlockTraceEntry } from '../../../tracing/service.ts';
import type {
  CallFrame,
  PrestateAccount,
  PrestateMap,
  StructLog,
  StructTrace,
  TraceResult,
} from '../../../tracing/types.ts';

type Json = Record<string, unknown>;

function memoryWords(m: Uint8Array): string[] {
  const hex = Buffer.from(m.buffer, m.byteOffset, m.byteLength).toString('hex');
  const out: string[] = [];
  for (let i = 0; i < hex.length; i += 64) out.push(`0x${hex.slice(i, i + 64).padEnd(64, '0')}`);
  return out;
}

function storageObject(s: Map<string, [Uint8Array, Uint8Array]>): Json {
  const out: Json = {};
  for (const [slot, value] of s.values()) out[bytesToHex(slot)] = bytesToHex(value);
  return out;
}

function structLog(l: StructLog): Json {
  const o: Json = { pc: l.pc, op: l.op, gas: Number(l.gas), gasCost: Number(l.gasCost), depth: l.depth };
  if (l.error !== undefined) o.error = l.error;
  if (l.stack) o.stack = l.stack.map((v) => toQuantity(v));
  if (l.returnData) o.returnData = bytesToHex(l.returnData);
  if (l.memory) o.memory = memoryWords(l.memory);
  if (l.storage) o.storage = storageObject(l.storage);
  if (l.refund > 0n) o.refund = Number(l.refund);
  return o;
}

function structTrace(t: StructTrace): Json {
  return {
    gas: Number(t.gas),
    failed: t.failed,
    returnValue: bytesToHex(t.returnValue),
    structLogs: t.structLogs.map(structLog),
  };
}

function callFrame(f: CallFrame): Json {
  const o: Json = { type: f.type, from: bytesToHex(f.from), gas: toQuantity(f.gas), gasUsed: toQuantity(f.gasUsed) };
  if (f.to) o.to = bytesToHex(f.to);
  o.input = bytesToHex(f.input);
  if (f.output) o.output = bytesToHex(f.output);
  if (f.error !== undefined) o.error = f.error;
  if (f.revertReason !== undefined) o.revertReason = f.revertReason;
  if (f.calls.length) o.calls = f.calls.map(callFrame);
  if (f.logs.length) {
    o.logs = f.logs.map((l) => ({
      address: bytesToHex(l.address),
      topics: l.topics.map((t) => bytesToHex(t)),
      data: bytesToHex(l.data),
      position: toQuantity(l.position),
    }));
  }
  if (f.value !== undefined) o.value = toQuantity(f.value);
  return o;
}

function account(a: PrestateAccount): Json {
  const o: Json = {};
  if (a.balance !== undefined) o.balance = toQuantity(a.balance);
  if (a.nonce !== undefined && a.nonce > 0n) o.nonce = Number(a.nonce);
  if (a.code !== undefined && a.code.length > 0) o.code = bytesToHex(a.code);
  if (a.codeHash !== undefined && a.code !== undefined && a.code.length > 0) o.codeHash = bytesToHex(a.codeHash);
  if (a.storage !== undefined && a.storage.size > 0) o.storage = storageObject(a.storage);
  return o;
}

function prestate(m: PrestateMap): Json {
  const out: Json = {};
  for (const [addr, acc] of m.values()) out[bytesToHex(addr)] = account(acc);
  return out;
}

/** One tracer result in wire form. */
export function formatTrace(r: TraceResult): unknown {
  switch (r.kind) {
    case 'struct':
      return structTrace(r.value);
    case 'call':
      return callFrame(r.value);
    case 'prestate':
      return prestate(r.value);
    case 'prestateDiff':
      return { post: prestate(r.value.post), pre: prestate(r.value.pre) };
    case 'fourByte': {
      const out: Json = {};
      for (const c of r.value) out[`${bytesToHex(c.selector)}-${c.size}`] = c.count;
      return out;
    }
    case 'parity':
      return formatParityTraces(r.value);
    case 'json':
      return r.value;
  }
}

/** A block trace: [{txHash, result}] or [{txHash, error}] per transaction. */
export function formatBlockTrace(entries: BlockTraceEntry[]): unknown[] {
  return entries.map((e) =>
    e.result !== undefined
      ? { txHash: bytesToHex(e.txHash), result: formatTrace(e.result) }
      : { txHash: bytesToHex(e.txHash), error: e.error },
  );
}
