// debug_traceCall: a call run exactly as eth_call runs it (CallService), with a tracer attached through its hook.
import type { BlockRecord } from '../store/records.ts';
import type { CallHook, CallService } from '../app/evm/call.ts';
import { installStepFeed } from '../app/evm/stepFeed.ts';
import type { CallRequest } from '../primitives/callRequest.ts';
import type { CallOverrides } from '../primitives/overrides.ts';
import { TraceDriver } from './driver.ts';
import { TraceAbort } from './errors.ts';
import { evmOf, outcomeOf, txEnv, type TracerFactory } from './replay.ts';
import type { NodeReader } from './syncState.ts';
import type { TraceResult } from './types.ts';

/** The price an EIP-1559 call pays at `baseFee`. */
function effectivePrice(req: CallRequest, baseFee: bigint): bigint {
  const cap = req.maxFeePerGas ?? 0n;
  const tip = req.maxPriorityFeePerGas ?? 0n;
  return cap < baseFee + tip ? cap : baseFee + tip;
}

/** Traces `req` (with its overrides) on `block`'s state with the tracer `make` builds; the deadline starts now. */
export async function traceCallWith(
  calls: CallService,
  readNode: NodeReader,
  req: CallRequest,
  block: BlockRecord,
  make: TracerFactory,
  timeoutMs: number,
  overrides?: CallOverrides,
): Promise<TraceResult> {
  const deadline = timeoutMs > 0 ? Date.now() + timeoutMs : 0;
  const handle = await make(deadline);
  let driver: TraceDriver | undefined;
  let result: TraceResult | undefined;
  const hook: CallHook = {
    attach(vm, sm, tx, ctxBlock) {
      const priced = req.gasPrice !== undefined || req.maxFeePerGas !== undefined;
      const price = !priced ? 0n : (req.gasPrice ?? effectivePrice(req, ctxBlock.header.baseFeePerGas ?? 0n));
      const env = txEnv(vm, sm, readNode, tx, req.from ?? new Uint8Array(20), ctxBlock, price);
      driver = new TraceDriver(evmOf(vm), handle.tracer, env, deadline);
      driver.attach(installStepFeed(evmOf(vm)));
    },
    finish(r) {
      driver!.finish(outcomeOf(r));
      try {
        result = handle.tracer.result();
      } catch (e) {
        driver!.failure ??= e instanceof Error ? e : new TraceAbort(String(e));
        throw e;
      }
    },
    detach() {
      driver?.detach();
    },
    get failure() {
      return driver?.failure;
    },
  };
  try {
    await calls.traceCall(req, block, hook, overrides);
  } finally {
    handle.close();
  }
  return result!;
}
