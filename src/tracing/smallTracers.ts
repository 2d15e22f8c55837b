// The two small built-ins: 4byteTracer (selector-and-size counts of every call) and noopTracer ({}).
import type { FrameEnter, Tracer, TraceResult, TxEnv } from './types.ts';
import { bareHex } from '../primitives/hex.ts';

const CALL_TYPES = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL']);

/** geth's 4byteTracer: counts "selector-<calldata size after it>" over all calls into code. */
export class FourByteTracer implements Tracer {
  readonly wantsSteps = false;
  private readonly counts = new Map<string, { selector: Uint8Array; size: number; count: number }>();
  private env?: TxEnv;

  /** Keeps the precompile check. */
  txStart(env: TxEnv): void {
    this.env = env;
  }

  /** Counts the frame's selector (creations and precompile calls are skipped, as in geth). */
  enter(f: FrameEnter): void {
    if (f.input.length < 4 || !CALL_TYPES.has(f.type) || this.env?.isPrecompile(f.to)) return;
    const selector = f.input.subarray(0, 4);
    const size = f.input.length - 4;
    const key = `${bareHex(selector)}-${size}`;
    const hit = this.counts.get(key);
    if (hit) hit.count++;
    else this.counts.set(key, { selector: selector.slice(), size, count: 1 });
  }

  /** The counts. */
  result(): TraceResult {
    return { kind: 'fourByte', value: [...this.counts.values()] };
  }
}

/** geth's noopTracer: runs the transaction, returns {}. */
export class NoopTracer implements Tracer {
  readonly wantsSteps = false;
  /** Always {}. */
  result(): TraceResult {
    return { kind: 'json', value: {} };
  }
}
