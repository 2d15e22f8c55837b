// vmTrace → OpenEthereum's JSON: pc, cost and used as JSON numbers, stack words and storage keys/values as
// minimal hex quantities, memory as 0x bytes (the field types of OpenEthereum's and reth's VmTrace).
import { bytesToHex, toQuantity } from '../../../primitives/hex.ts';
import type { VmOp, VmTrace } from '../../../tracing/types.ts';

type Json = Record<string, unknown>;

function op(o: VmOp): Json {
  const ex = o.ex;
  return {
    pc: o.pc,
    op: o.op,
    cost: Number(o.cost),
    ex: ex && {
      push: ex.push.map(toQuantity),
      mem: ex.mem && { off: ex.mem.off, data: bytesToHex(ex.mem.data) },
      store: ex.store && { key: toQuantity(ex.store.key), val: toQuantity(ex.store.val) },
      used: Number(ex.used),
    },
    sub: o.sub && formatVmTrace(o.sub),
  };
}

/** A frame's vmTrace as JSON (nested frames under their opcodes). */
export function formatVmTrace(t: VmTrace): Json {
  return { code: bytesToHex(t.code), ops: t.ops.map(op) };
}
