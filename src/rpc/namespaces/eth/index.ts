// The eth namespace: every method of the node-core surface.
import type { RpcContext } from '../../context.ts';
import type { RpcMethod } from '../../method.ts';
import { blockMethods } from './blocks.ts';
import { callMethods } from './call.ts';
import { chainMethods } from './chain.ts';
import { configMethods } from './config.ts';
import { feeMethods } from './fees.ts';
import { fillMethods } from './fill.ts';
import { filterMethods } from './filters.ts';
import { logMethods } from './logs.ts';
import { proofMethods } from './proof.ts';
import { signMethods } from './sign.ts';
import { simulateMethods } from './simulate.ts';
import { stateMethods } from './state.ts';
import { subscribeMethods } from './subscribe.ts';
import { transactionMethods } from './transactions.ts';

/** All eth_ methods. */
export const ethNamespace: RpcMethod<RpcContext>[] = [
  ...chainMethods,
  ...stateMethods,
  ...blockMethods,
  ...transactionMethods,
  ...callMethods,
  ...feeMethods,
  ...signMethods,
  ...logMethods,
  ...filterMethods,
  ...subscribeMethods,
  ...proofMethods,
  ...configMethods,
  ...fillMethods,
  ...simulateMethods,
];
