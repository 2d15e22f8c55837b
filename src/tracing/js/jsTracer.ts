// A tracer written in JavaScript by the caller, run in the QuickJS sandbox. The bridge passes only the opcode
// number on each step; everything else (stack, memory, contract, state) is pulled lazily through host functions,
// so a tracer pays only for what it reads.
import { generateAddress, generateAddress2 } from '@ethereumjs/util';
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten';
import { bareHex, bigintToBytes, bytesToBigint } from '../../primitives/hex.ts';
import { TIMEOUT_MESSAGE, TraceAbort } from '../errors.ts';
import type { FrameEnter, FrameExit, StepEvent, Tracer, TraceResult, TxEnv, TxOutcome } from '../types.ts';
import { PRELUDE } from './prelude.ts';
import type { Sandbox, SandboxHost } from './sandbox.ts';

const unhex = (s: string): Uint8Array => Buffer.from(s.length % 2 ? `0${s}` : s, 'hex');

/** Go's time.Duration text for a span in milliseconds (e.g. "1.5ms", "2.01s"). */
function goDuration(ms: number): string {
  if (ms >= 1000) return `${+(ms / 1000).toFixed(6)}s`;
  if (ms >= 1) return `${+ms.toFixed(6)}ms`;
  return `${+(ms * 1000).toFixed(3)}µs`;
}

type Entry = 'step' | 'fault' | 'enter' | 'exit' | 'result' | 'setup';

/** A geth-API JavaScript tracer running in a QuickJS sandbox. Call close() when done. */
export class JsTracer implements Tracer {
  private readonly ctx: QuickJSContext;
  private readonly fns = new Map<string, QuickJSHandle>();
  private readonly opHandles: QuickJSHandle[] = [];
  private hasStep = false;
  private hasFrames = false;
  private cur?: StepEvent;
  private env?: TxEnv;
  private outcome?: TxOutcome;
  private started = 0;
  private closed = false;

  private constructor(
    private readonly sandbox: Sandbox,
    private readonly host: SandboxHost,
  ) {
    this.ctx = sandbox.context;
  }

  /** Compiles `source` (an object expression, as geth evaluates it) and runs its setup(config). */
  static async create(
    host: SandboxHost,
    source: string,
    config: Record<string, unknown>,
    deadline: number,
  ): Promise<JsTracer> {
    const t = new JsTracer(await host.create(deadline), host);
    try {
      t.install(source, JSON.stringify(config));
      return t;
    } catch (e) {
      t.close();
      throw e;
    }
  }

  private install(source: string, configJson: string): void {
    const ctx = this.ctx;
    const bridge = this.bridge();
    try {
      const prelude = this.unwrap(ctx.evalCode(PRELUDE, 'prelude.js'), 'setup');
      try {
        this.unwrap(ctx.callFunction(prelude, ctx.undefined, bridge), 'setup').dispose();
      } finally {
        prelude.dispose();
      }
    } finally {
      bridge.dispose();
    }
    for (const name of ['__install', '__setup', '__step', '__fault', '__enter', '__exit', '__result']) {
      this.fns.set(name, ctx.getProp(ctx.global, name));
    }
    const r = ctx.evalCode(`(${source}\n)`, 'tracer.js');
    if (r.error) {
      const err = ctx.dump(r.error) as { name?: string; message?: string };
      r.error.dispose();
      throw new TraceAbort(`${err?.name ?? 'Error'}: ${err?.message ?? String(err)}`);
    }
    const obj = r.value;
    let flags: QuickJSHandle;
    try {
      flags = this.call('__install', [obj], 'setup', true);
    } finally {
      obj.dispose();
    }
    const f = Number(ctx.getNumber(flags));
    flags.dispose();
    this.hasStep = (f & 1) !== 0;
    this.hasFrames = (f & 2) !== 0;
    const cfg = ctx.newString(configJson);
    try {
      this.call('__setup', [cfg], 'setup').dispose();
    } finally {
      cfg.dispose();
    }
  }

  /** The host functions the prelude builds the tracer API on. */
  private bridge(): QuickJSHandle {
    const ctx = this.ctx;
    const step = (): StepEvent => {
      if (!this.cur) throw new Error('log is only available inside step() and fault()');
      return this.cur;
    };
    const state = () => this.env!.state;
    const str = (h: QuickJSHandle) => ctx.getString(h);
    const num = (h: QuickJSHandle) => ctx.getNumber(h);
    const memCheck = (s: StepEvent, off: number, size: number) => {
      const avail = s.memoryLength;
      if (!(Number.isInteger(off) && Number.isInteger(size) && off >= 0 && size >= 0 && off + size <= avail)) {
        throw new Error(`tracer accessed out of bound memory: available ${avail}, offset ${off}, size ${size}`);
      }
    };
    const fns: Record<string, (...a: QuickJSHandle[]) => QuickJSHandle> = {
      opName: () => {
        const s = step();
        return ctx.newString(
          s.opName === 'INVALID' && s.op !== 0xfe ? `opcode 0x${s.op.toString(16)} not defined` : s.opName,
        );
      },
      peek: (i) => {
        const s = step();
        const n = num(i);
        if (!(Number.isInteger(n) && n >= 0 && n < s.stackLength))
          throw new Error(`tracer accessed out of bound stack: size ${s.stackLength}, index ${n}`);
        return ctx.newBigInt(s.peek(n));
      },
      stackLength: () => ctx.newNumber(step().stackLength),
      memory: (a, b) => {
        const s = step();
        const [off, end] = [num(a), num(b)];
        memCheck(s, off, end - off);
        return ctx.newArrayBuffer(s.memorySlice(off, end - off).buffer as ArrayBuffer);
      },
      memoryWord: (a) => {
        const s = step();
        const off = num(a);
        memCheck(s, off, 32);
        return ctx.newBigInt(bytesToBigint(s.memorySlice(off, 32)));
      },
      memoryLength: () => ctx.newNumber(step().memoryLength),
      address: () => ctx.newString(bareHex(step().frame.self)),
      caller: () => ctx.newString(bareHex(step().frame.caller)),
      value: () => ctx.newBigInt(step().frame.value ?? 0n),
      input: () => ctx.newString(bareHex(step().frame.input)),
      pc: () => ctx.newNumber(step().pc),
      gas: () => ctx.newNumber(Number(step().gas)),
      cost: () => ctx.newNumber(Number(step().cost)),
      depth: () => ctx.newNumber(step().depth),
      refund: () => ctx.newNumber(Number(step().refund)),
      balance: (a) => ctx.newBigInt(state().account(unhex(str(a)))?.balance ?? 0n),
      nonce: (a) => ctx.newNumber(Number(state().account(unhex(str(a)))?.nonce ?? 0n)),
      code: (a) => ctx.newString(bareHex(state().code(unhex(str(a))))),
      state: (a, s) => ctx.newString(bareHex(state().storage(unhex(str(a)), unhex(str(s))))),
      exists: (a) => (state().account(unhex(str(a))) ? ctx.true : ctx.false),
      toContract: (a, n) => ctx.newString(bareHex(generateAddress(unhex(str(a)), bigintToBytes(BigInt(num(n)))))),
      toContract2: (a, s, c) => ctx.newString(bareHex(generateAddress2(unhex(str(a)), unhex(str(s)), unhex(str(c))))),
      isPrecompiled: (a) => (this.env?.isPrecompile(unhex(str(a))) ? ctx.true : ctx.false),
    };
    const obj = ctx.newObject();
    for (const [name, fn] of Object.entries(fns)) {
      const h = ctx.newFunction(name, fn);
      ctx.setProp(obj, name, h);
      h.dispose();
    }
    return obj;
  }

  /** Unwraps a call result; a sandbox exception becomes a TraceAbort in geth's wording. */
  private unwrap(r: { error?: QuickJSHandle; value?: QuickJSHandle }, fn: Entry, bare = false): QuickJSHandle {
    if (!r.error) return r.value!;
    const err = this.ctx.dump(r.error) as { name?: string; message?: string } | string;
    r.error.dispose();
    const name = typeof err === 'object' ? (err?.name ?? 'Error') : 'Error';
    const message = typeof err === 'object' ? (err?.message ?? '') : String(err);
    if (name === 'InternalError' && message === 'interrupted') throw new TraceAbort(TIMEOUT_MESSAGE);
    const text = `${name}: ${message}`;
    throw new TraceAbort(bare ? text : `${text}    in server-side tracer function '${fn}'`);
  }

  private call(name: string, args: QuickJSHandle[], fn: Entry, bare = false): QuickJSHandle {
    if (this.closed) throw new TraceAbort('tracer already closed');
    let r;
    try {
      r = this.ctx.callFunction(this.fns.get(name)!, this.ctx.undefined, ...args);
    } catch (e) {
      // Not a tracer exception: the interpreter itself failed. Never reuse that WebAssembly instance.
      this.host.discard();
      throw new TraceAbort(`tracer sandbox failed: ${(e as Error)?.message ?? String(e)}`);
    }
    return this.unwrap(r, fn, bare);
  }

  private opHandle(op: number): QuickJSHandle {
    return (this.opHandles[op] ??= this.ctx.newNumber(op));
  }

  /** Keeps the environment for db reads and ctx. */
  txStart(env: TxEnv): void {
    this.env = env;
    this.started = performance.now();
  }

  /** Calls step(log, db). */
  step(s: StepEvent): void {
    if (!this.hasStep) return;
    this.cur = s;
    this.call('__step', [this.opHandle(s.op)], 'step').dispose();
  }

  /** Calls fault(log, db) with the failing opcode's log. */
  fault(s: StepEvent, error: string): void {
    this.cur = s;
    const e = this.ctx.newString(error);
    try {
      this.call('__fault', [this.opHandle(s.op), e], 'fault').dispose();
    } finally {
      e.dispose();
    }
  }

  /** Calls enter(frame) for nested frames (the top frame is the result's ctx, as in geth). */
  enter(f: FrameEnter): void {
    if (!this.hasFrames || f.depth === 0) return;
    this.json('__enter', 'enter', {
      type: f.type,
      from: bareHex(f.from),
      to: bareHex(f.to),
      input: bareHex(f.input),
      gas: Number(f.gas),
      value: f.value === undefined ? undefined : f.value.toString(),
    });
  }

  /** Calls exit(result) for nested frames. */
  exit(x: FrameExit): void {
    if (!this.hasFrames || x.depth === 0) return;
    this.json('__exit', 'exit', { gasUsed: Number(x.gasUsed), output: bareHex(x.output), error: x.error });
  }

  private json(name: string, fn: Entry, value: unknown): QuickJSHandle | void {
    const arg = this.ctx.newString(JSON.stringify(value));
    try {
      const out = this.call(name, [arg], fn);
      if (name !== '__result') return out.dispose();
      return out;
    } finally {
      arg.dispose();
    }
  }

  /** Keeps the outcome for ctx. */
  txEnd(o: TxOutcome): void {
    this.outcome = o;
  }

  /** Calls result(ctx, db); the value is JSON-serialised inside the sandbox (bigInt → decimal string). */
  result(): TraceResult {
    const env = this.env!;
    const o = this.outcome;
    this.cur = undefined;
    const to = env.to ?? o?.createdAddress;
    const ctxJson = {
      type: env.to ? 'CALL' : 'CREATE',
      from: bareHex(env.from),
      to: to && bareHex(to),
      input: bareHex(env.input),
      gas: Number(env.gasLimit),
      gasPrice: Number(env.gasPrice),
      value: env.value.toString(),
      block: Number(env.blockNumber),
      output: bareHex(o?.returnValue ?? new Uint8Array(0)),
      gasUsed: Number(o?.gasUsed ?? 0n),
      time: goDuration(performance.now() - this.started),
      intrinsicGas: Number(env.intrinsicGas),
      error: o?.error,
      blockHash: env.blockHash && bareHex(env.blockHash),
      txIndex: env.txIndex,
      txHash: env.txHash && bareHex(env.txHash),
    };
    const out = this.json('__result', 'result', ctxJson) as QuickJSHandle;
    const text = this.ctx.getString(out);
    out.dispose();
    return { kind: 'json', value: JSON.parse(text) as unknown };
  }

  /** Frees the sandbox. Safe to call twice. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const h of this.opHandles) h?.dispose();
    for (const h of this.fns.values()) h.dispose();
    this.sandbox.dispose();
  }
}
