// debug_traceCall: a call prepared exactly as eth_call runs it (CallService.traceCall), run on the engine with a
// tracer attached.
import type { BlockRecord } from '../store/records.ts';
import type { CallService, PreparedCall } from '../app/evm/call.ts';
import { refusalOf } from '../app/evm/callRules.ts';
import { addressBytes } from '../app/evm/engineTx.ts';
import type { TxInvalidReason } from '../evm/index.ts';
import type { CallRequest } from '../primitives/callRequest.ts';
import type { CallOverrides } from '../primitives/overrides.ts';
import { runTraced, txEnvOf, type TracerFactory } from './replay.ts';
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
  req: CallRequest,
  block: BlockRecord,
  make: TracerFactory,
  timeoutMs: number,
  overrides?: CallOverrides,
): Promise<TraceResult> {
  const deadline = timeoutMs > 0 ? Date.now() + timeoutMs : 0;
  const handle = await make(deadline);
  try {
    return await calls.traceCall(
      req,
      block,
      (call: PreparedCall) => {
        const { world, env, tx, opts } = call;
        const price = !call.priced ? 0n : (req.gasPrice ?? effectivePrice(req, env.baseFee));
        const txEnv = txEnvOf(world, env, tx, opts, price, {
          from: req.from ?? new Uint8Array(20),
          to: req.to,
          coinbase: addressBytes(env.coinbase),
        });
        // A refusal the sender's checks did not catch first reads as eth_call's would.
        const refuse = (reason: TxInvalidReason, message: string) => refusalOf(reason, message, tx, call.minGas);
        return runTraced({ world, env, tx, opts, txEnv }, handle.tracer, deadline, refuse).result;
      },
      overrides,
    );
  } finally {
    handle.close();
  }
}
