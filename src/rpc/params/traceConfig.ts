// The debug_trace* config codec (geth's TraceConfig / TraceCallConfig): unknown fields are ignored, absent and
// null fields take geth's defaults, wrong JSON types fail with encoding/json's wording.
import { parseDurationMs } from '../../config/durations.ts';
import type { CallOverrides } from '../../primitives/overrides.ts';
import type { TraceConfig } from '../../tracing/types.ts';
import type { Codec } from './codec.ts';
import { ParamError, codec, optional } from './codec.ts';
import { UnmarshalTypeError, atField, jsonKind } from './data.ts';
import { blockOverrides, stateOverrides } from './overrides.ts';

/** geth's default per-transaction trace timeout. */
export const DEFAULT_TRACE_TIMEOUT_MS = 5000;

type Obj = Record<string, unknown>;

/** The value of obj[key] unless absent or null. */
function present(obj: Obj, key: string): unknown {
  return Object.hasOwn(obj, key) && obj[key] !== null ? obj[key] : undefined;
}

function boolField(obj: Obj, key: string, struct: string): boolean {
  const v = present(obj, key);
  if (v === undefined) return false;
  if (typeof v !== 'boolean') throw new UnmarshalTypeError(jsonKind(v), 'bool', `${struct}.${key}`);
  return v;
}

function tracerConfig(obj: Obj, struct: string): Obj {
  const v = present(obj, 'tracerConfig');
  if (v === undefined) return {};
  // Ethermint took the config as a string holding JSON; accept that too so older tools keep working.
  if (typeof v === 'string') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(v);
    } catch {
      throw new ParamError(`${struct}.tracerConfig: invalid JSON in string`);
    }
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Obj;
    throw new UnmarshalTypeError(jsonKind(parsed), 'object', `${struct}.tracerConfig`);
  }
  if (typeof v !== 'object' || Array.isArray(v))
    throw new UnmarshalTypeError(jsonKind(v), 'object', `${struct}.tracerConfig`);
  return v as Obj;
}

function timeout(obj: Obj, struct: string): number {
  const v = present(obj, 'timeout');
  if (v === undefined) return DEFAULT_TRACE_TIMEOUT_MS;
  if (typeof v !== 'string') throw new UnmarshalTypeError(jsonKind(v), 'string', `${struct}.timeout`);
  let ms: number;
  try {
    ms = parseDurationMs(v);
  } catch {
    throw new ParamError(`time: invalid duration "${v}"`);
  }
  // A zero timeout expires at once, as in geth; the deadline still needs a non-zero value to be armed. The upper
  // bound is the node's json-rpc.tracer-timeout-cap, applied by the trace service.
  return Math.max(ms, 1);
}

function limit(obj: Obj, struct: string): number {
  const v = present(obj, 'limit');
  if (v === undefined) return 0;
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    throw new UnmarshalTypeError(typeof v === 'number' ? `number ${v}` : jsonKind(v), 'int', `${struct}.limit`);
  }
  if (v < 0) throw new ParamError(`output limit cannot be negative, got ${v}`);
  return v;
}

/** Decodes a trace config object for `struct` ("TraceConfig" or "TraceCallConfig"). */
/** TraceCallConfig's stateOverrides and blockOverrides, decoded (undefined when neither is given). */
function callOverrides(obj: Obj, struct: string): CallOverrides | undefined {
  const decode = <T>(k: string, c: Codec<T>): T | undefined => {
    const v = present(obj, k);
    if (v === undefined) return undefined;
    try {
      return c.decode(v);
    } catch (e) {
      throw atField(e, `${struct}.${k}`);
    }
  };
  const state = decode('stateOverrides', stateOverrides);
  const block = decode('blockOverrides', blockOverrides);
  if (state === undefined && block === undefined) return undefined;
  return { ...(state !== undefined && { state }), ...(block !== undefined && { block }) };
}

function decodeConfig(raw: unknown, struct: string): TraceConfig & { overrides?: CallOverrides } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new UnmarshalTypeError(jsonKind(raw), `tracers.${struct}`);
  const obj = raw as Obj;
  const tracer = present(obj, 'tracer');
  if (tracer !== undefined && typeof tracer !== 'string')
    throw new UnmarshalTypeError(jsonKind(tracer), 'string', `${struct}.tracer`);
  return {
    tracer: tracer === '' ? undefined : (tracer as string | undefined),
    tracerConfig: tracerConfig(obj, struct),
    timeoutMs: timeout(obj, struct),
    disableStack: boolField(obj, 'disableStack', struct),
    disableStorage: boolField(obj, 'disableStorage', struct),
    enableMemory: boolField(obj, 'enableMemory', struct),
    enableReturnData: boolField(obj, 'enableReturnData', struct),
    limit: limit(obj, struct),
    ...(struct === 'TraceCallConfig' && { overrides: callOverrides(obj, struct) }),
  };
}

/** The defaults geth applies when no config is passed. */
export function defaultTraceConfig(): TraceConfig {
  return {
    tracerConfig: {},
    timeoutMs: DEFAULT_TRACE_TIMEOUT_MS,
    disableStack: false,
    disableStorage: false,
    enableMemory: false,
    enableReturnData: false,
    limit: 0,
  };
}

/** Optional TraceConfig (debug_traceTransaction, debug_traceBlockBy*). */
export const traceConfig: Codec<TraceConfig> = optional(
  codec((raw) => {
    const { overrides: _ignored, ...cfg } = decodeConfig(raw, 'TraceConfig');
    return cfg;
  }),
  defaultTraceConfig,
);

/** Optional TraceCallConfig (debug_traceCall), with its state and block overrides decoded. */
export const traceCallConfig: Codec<TraceConfig & { overrides?: CallOverrides }> = optional(
  codec((raw) => decodeConfig(raw, 'TraceCallConfig')),
  defaultTraceConfig,
);
