// eth_getProof: EIP-1186 Merkle proofs verifiable against the selected block's stateRoot.
import { proveAccount } from '../../../app/state/proof.ts';
import type { Needs } from '../../context.ts';
import { formatProof } from '../../format/proof.ts';
import { defineMethod } from '../../method.ts';
import { address, optionalBlockSelector, proofKeys } from '../../params/index.ts';

/** What these methods use. */
type Ctx = Needs<'chain'>;

/** Handler for eth_getProof (https://eips.ethereum.org/EIPS/eip-1186); the block defaults to latest. */
export const getProof = defineMethod({
  name: 'eth_getProof',
  params: [address, proofKeys, optionalBlockSelector],
  handler: async (ctx: Ctx, [addr, keys, sel]) => {
    const block = ctx.chain.resolveBlock(sel);
    const proof = await proveAccount(
      ctx.chain.stateAt(block),
      addr,
      keys.map((k) => k.slot),
    );
    return formatProof(
      proof,
      keys.map((k) => k.full),
    );
  },
});

export const proofMethods = [getProof];
