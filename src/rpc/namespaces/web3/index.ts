// The web3 namespace.
import { keccak256 } from '../../../primitives/hash.ts';
import { bytesToHex } from '../../../primitives/hex.ts';
import type { Needs } from '../../context.ts';
import { defineMethod, type RpcMethod } from '../../method.ts';
import { bytes } from '../../params/index.ts';

/** What these methods use. */
type Ctx = Needs<'clientVersion'>;

/** web3_ methods; sha3 hashes the decoded bytes, as geth does (Ethermint hashed the hex text). */
export const web3Namespace: RpcMethod<Ctx>[] = [
  defineMethod({ name: 'web3_clientVersion', params: [], handler: (ctx: Ctx) => ctx.clientVersion }),
  defineMethod({
    name: 'web3_sha3',
    params: [bytes],
    handler: (_ctx: Ctx, [data]) => bytesToHex(keccak256(data)),
  }),
];
