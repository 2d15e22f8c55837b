// The tracer sandbox's resource limits, apart from the sandbox itself: the node's composition root and the tracing
// service need the defaults at startup, and importing sandbox.ts for them would load QuickJS (~20 ms) before the
// first request; the sandbox now loads only in the tracer worker that runs a JavaScript tracer.

/** Resource limits of one tracer sandbox. */
export interface SandboxLimits {
  /** Heap limit of the tracer's runtime. */
  memoryBytes: number;
  /** Native stack limit (bounds recursion). */
  stackBytes: number;
}

/** Default limits: far more than real tracers use, far less than the node can spare. */
export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { memoryBytes: 64 * 1024 * 1024, stackBytes: 512 * 1024 };
