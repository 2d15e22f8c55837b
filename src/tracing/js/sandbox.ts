// The sandbox for untrusted tracer code: QuickJS compiled to WebAssembly (quickjs-emscripten). Tracer code runs
// in its own interpreter with its own heap inside WASM linear memory; it reaches the node only through the host
// functions the tracer bridge installs. Each trace gets a fresh runtime with a memory cap, a stack cap and an
// interrupt deadline. QuickJS's own heap limit does not count ArrayBuffer contents, so the module's WebAssembly
// memory itself has a maximum too: past it, every allocation fails and the tracer gets "out of memory".
import {
  newQuickJSWASMModule,
  newVariant,
  RELEASE_SYNC,
  type QuickJSContext,
  type QuickJSRuntime,
  type QuickJSWASMModule,
} from 'quickjs-emscripten';
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from './limits.ts';

const WASM_PAGE = 65536;
/** Room for QuickJS's own data and the ArrayBuffer contents its heap limit does not count. */
const WASM_OVERHEAD_BYTES = 16 * 1024 * 1024;

/** A runtime + context pair; dispose when the trace ends. */
export interface Sandbox {
  runtime: QuickJSRuntime;
  context: QuickJSContext;
  dispose(): void;
}

/** Owns the (lazily compiled) QuickJS WebAssembly module and hands out fresh sandboxes. */
export class SandboxHost {
  private module?: Promise<QuickJSWASMModule>;

  constructor(private readonly limits: SandboxLimits = DEFAULT_SANDBOX_LIMITS) {}

  private load(): Promise<QuickJSWASMModule> {
    if (this.module) return this.module;
    const pages = Math.ceil((2 * this.limits.memoryBytes + WASM_OVERHEAD_BYTES) / WASM_PAGE);
    const wasmMemory = new WebAssembly.Memory({ initial: Math.min(256, pages), maximum: pages });
    this.module = newQuickJSWASMModule(newVariant(RELEASE_SYNC, { wasmMemory })).catch((e: unknown) => {
      this.module = undefined;
      throw e;
    });
    return this.module;
  }

  /** Compiles the WebAssembly module now (a worker does this before it takes jobs, so no deadline pays for it). */
  async warm(): Promise<void> {
    await this.load();
  }

  /** A new runtime whose interrupt handler fires once `deadline` (epoch ms, 0 = never) has passed. */
  async create(deadline: number): Promise<Sandbox> {
    const mod = await this.load();
    const runtime = mod.newRuntime();
    runtime.setMemoryLimit(this.limits.memoryBytes);
    runtime.setMaxStackSize(this.limits.stackBytes);
    runtime.setInterruptHandler(() => deadline > 0 && Date.now() > deadline);
    const context = runtime.newContext();
    return {
      runtime,
      context,
      dispose: () => {
        // A leaked handle makes QuickJS abort inside WASM; never let that reach the caller's result.
        try {
          context.dispose();
          runtime.dispose();
        } catch {
          this.discard();
        }
      },
    };
  }

  /**
   * Forgets the module after a failure inside WebAssembly itself (a trap, not a JS exception of the tracer):
   * its linear memory can no longer be trusted, so the next trace compiles a fresh one.
   */
  discard(): void {
    this.module = undefined;
  }
}
