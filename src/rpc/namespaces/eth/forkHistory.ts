// Which reads a forked chain answers from its upstream: blocks at or below the fork block N (by number, the
// `earliest` tag, or a hash the local chain holds only as block N or not at all). Above N everything is local.
import type { ForkHistory } from '../../../app/fork/history.ts';
import type { ForkState } from '../../../app/fork/forkState.ts';
import type { BlockSelector } from '../../../primitives/blockSelector.ts';
import type { Needs } from '../../context.ts';

/** What the lookup reads. */
type Ctx = Needs<'calls' | 'chain'>;

/** The upstream history and the height, when `sel` names a number or `earliest` at or below the fork block. */
export function upstreamHeight(ctx: Ctx, sel: BlockSelector): { history: ForkHistory; number: bigint } | undefined {
  const history = ctx.calls.upstream?.history;
  if (history === undefined) return undefined;
  if (sel.kind === 'number' && history.isUpstream(sel.number)) return { history, number: sel.number };
  if (sel.kind === 'tag' && sel.tag === 'earliest') return { history, number: 0n };
  return undefined;
}

/** The upstream history when the block with `hash` is not one of the local chain's own (above the fork block). */
export function upstreamHash(ctx: Ctx, hash: Uint8Array): ForkHistory | undefined {
  const history = ctx.calls.upstream?.history;
  if (history === undefined) return undefined;
  const local = ctx.chain.blockByHash(hash);
  return local === undefined || history.isUpstream(local.number) ? history : undefined;
}

/** The height of a block below the fork block (the upstream's state, asked of it), or undefined. */
export function belowFork(up: ForkState, sel: BlockSelector): bigint | undefined {
  if (sel.kind === 'tag' && sel.tag === 'earliest') return 0n;
  return sel.kind === 'number' && sel.number < up.point.number ? sel.number : undefined;
}
