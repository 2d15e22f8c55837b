// EVM error texts as geth's tracers print them, and the error that aborts a trace.
import { ExecutionError } from '../errors/index.ts';

const GETH_TEXT: Record<string, string> = {
  'out of gas': 'out of gas',
  'code store out of gas': 'contract creation code storage out of gas',
  'code size to deposit exceeds maximum code size': 'max code size exceeded',
  'stack underflow': 'stack underflow',
  'stack overflow': 'stack limit reached 1024 (1023)',
  'invalid JUMP': 'invalid jump destination',
  revert: 'execution reverted',
  'static state change': 'write protection',
  'create collision': 'contract address collision',
  'insufficient balance': 'insufficient balance for transfer',
  'invalid bytecode deployed': 'invalid code: must not begin with 0xef',
  'initcode exceeds max initcode size': 'max initcode size exceeded',
  'value overflow': 'gas uint64 overflow',
};

/** geth's wording of an ethereumjs EVM error; `op` names the failing opcode for "invalid opcode". */
export function gethErrorText(error: string, op?: { code: number; name: string }): string {
  if (error === 'invalid opcode') {
    if (op === undefined) return 'invalid opcode';
    return op.code === 0xfe
      ? 'invalid opcode: INVALID'
      : `invalid opcode: opcode 0x${op.code.toString(16)} not defined`;
  }
  return GETH_TEXT[error] ?? error;
}

/** Ends a trace early (timeout, a failing JS tracer, a size limit); surfaces as a -32000 error. */
export class TraceAbort extends ExecutionError {
  override name = 'TraceAbort';
}

/** The request's trace output went over its byte budget: fails the whole request, even one tx of a block trace. */
export class OutputCapExceeded extends TraceAbort {
  override name = 'OutputCapExceeded';
}

/** geth's message when the trace deadline passes. */
export const TIMEOUT_MESSAGE = 'execution timeout';
