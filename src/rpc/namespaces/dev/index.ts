// The dev toolkit's methods, with Anvil's and Hardhat's names and results: evm_* (Hardhat's and Ganache's),
// anvil_* and hardhat_* (both prefixes where both exist; Hardhat answers `true` where Anvil answers null).
// Registered only under --dev or app.toml [dev] toolkit = true; otherwise every one answers -32601.
import { decodeDump, encodeDump } from '../../../app/dump/anvilState.ts';
import { MethodNotFoundError } from '../../../errors/index.ts';
import { bigintToBytes, bytesToHex, padLeft, toQuantity as quantity } from '../../../primitives/hex.ts';
import { allowanceCall, balanceOfCall, findViewSlot } from '../../services/erc20Slots.ts';
import type { DevControls, Needs } from '../../context.ts';
import { defineMethod, type RpcMethod } from '../../method.ts';
import { optional, type Codec } from '../../params/codec.ts';
import { address, bool, bytes, hash32, storageSlot } from '../../params/data.ts';
import { mineParams, u256, u64, word32 } from './params.ts';
import { resetMethods } from './reset.ts';

/** What these methods use. */
type Ctx = Needs<'app' | 'calls' | 'chain' | 'clientVersion' | 'config' | 'dev'>;

function dev(ctx: Ctx, method: string): DevControls {
  if (!ctx.dev) throw new MethodNotFoundError(method);
  return ctx.dev;
}

type Prefix = 'anvil' | 'hardhat';

/** The value Hardhat returns where Anvil returns null. */
const ack = (p: Prefix) => (p === 'hardhat' ? true : null);

/** Defines `<prefix>_<name>` for both prefixes. */
function both<const C extends readonly Codec<unknown>[]>(
  name: string,
  params: C,
  run: (d: DevControls, args: never, p: Prefix, ctx: Ctx) => unknown,
): RpcMethod<Ctx>[] {
  return (['anvil', 'hardhat'] as const).map((p) =>
    defineMethod({
      name: `${p}_${name}`,
      params,
      handler: (ctx: Ctx, args) => run(dev(ctx, `${p}_${name}`), args as never, p, ctx),
    }),
  );
}

const evm: RpcMethod<Ctx>[] = [
  defineMethod({
    name: 'evm_mine',
    params: [optional(mineParams)],
    handler: async (ctx: Ctx, [m]) => {
      await dev(ctx, 'evm_mine').mine(m?.blocks ?? 1n, { timestamp: m?.timestamp });
      return '0x0';
    },
  }),
  defineMethod({
    name: 'evm_snapshot',
    params: [],
    handler: (ctx: Ctx) => quantity(dev(ctx, 'evm_snapshot').snapshot()),
  }),
  defineMethod({
    name: 'evm_revert',
    params: [u64],
    handler: (ctx: Ctx, [id]) => dev(ctx, 'evm_revert').revert(id),
  }),
  defineMethod({
    name: 'evm_increaseTime',
    params: [u64],
    handler: (ctx: Ctx, [seconds]) => dev(ctx, 'evm_increaseTime').increaseTime(seconds).toString(),
  }),
  defineMethod({
    name: 'evm_setNextBlockTimestamp',
    params: [u64],
    handler: (ctx: Ctx, [ts]) => {
      dev(ctx, 'evm_setNextBlockTimestamp').setNextBlockTimestamp(ts);
      return ts.toString();
    },
  }),
  defineMethod({
    name: 'evm_setAutomine',
    params: [bool],
    handler: (ctx: Ctx, [on]) => {
      dev(ctx, 'evm_setAutomine').setAutomine(on);
      return true;
    },
  }),
  defineMethod({
    name: 'evm_setIntervalMining',
    params: [u64],
    handler: (ctx: Ctx, [ms]) => {
      dev(ctx, 'evm_setIntervalMining').setIntervalMining(Number(ms));
      return true;
    },
  }),
];

const time: RpcMethod<Ctx>[] = [
  defineMethod({
    name: 'anvil_setBlockTimestampInterval',
    params: [u64],
    handler: (ctx: Ctx, [seconds]) => (
      dev(ctx, 'anvil_setBlockTimestampInterval').setBlockTimestampInterval(seconds),
      null
    ),
  }),
  defineMethod({
    name: 'anvil_removeBlockTimestampInterval',
    params: [],
    handler: (ctx: Ctx) => dev(ctx, 'anvil_removeBlockTimestampInterval').removeBlockTimestampInterval(),
  }),
  defineMethod({
    name: 'anvil_setTime',
    params: [u64],
    handler: (ctx: Ctx, [ts]) => Number(dev(ctx, 'anvil_setTime').setTime(ts)),
  }),
];

/** Writes `amount` into the token slot the view `data` reads (anvil_dealERC20, anvil_setERC20Allowance). */
async function setViewSlot(
  ctx: Ctx,
  method: string,
  token: Uint8Array,
  data: Uint8Array,
  what: 'balance' | 'allowance',
  amount: bigint,
): Promise<null> {
  const d = dev(ctx, method);
  const slot = await findViewSlot(ctx.calls, ctx.chain.head(), token, data, what);
  await d.setStorageAt(token, slot, padLeft(bigintToBytes(amount), 32));
  return null;
}

const erc20: RpcMethod<Ctx>[] = [
  defineMethod({
    name: 'anvil_dealERC20',
    params: [address, address, u256],
    handler: (ctx: Ctx, [token, owner, amount]) =>
      setViewSlot(ctx, 'anvil_dealERC20', token, balanceOfCall(owner), 'balance', amount),
  }),
  defineMethod({
    name: 'anvil_setERC20Allowance',
    params: [address, address, address, u256],
    handler: (ctx: Ctx, [token, owner, spender, amount]) =>
      setViewSlot(ctx, 'anvil_setERC20Allowance', token, allowanceCall(owner, spender), 'allowance', amount),
  }),
];

const dumps: RpcMethod<Ctx>[] = [
  defineMethod({
    name: 'anvil_dumpState',
    params: [],
    handler: async (ctx: Ctx) => encodeDump(await dev(ctx, 'anvil_dumpState').dumpState()),
  }),
  defineMethod({
    name: 'anvil_loadState',
    params: [bytes],
    handler: async (ctx: Ctx, [buf]) => {
      await dev(ctx, 'anvil_loadState').loadState(decodeDump(buf));
      return true;
    },
  }),
];

const mining: RpcMethod<Ctx>[] = [
  defineMethod({
    name: 'hardhat_mine',
    params: [optional(u64), optional(u64)],
    handler: async (ctx: Ctx, [blocks, interval]) => {
      await dev(ctx, 'hardhat_mine').mine(blocks ?? 1n, { interval: interval ?? 1n });
      return true;
    },
  }),
  defineMethod({
    name: 'anvil_mine',
    params: [optional(u64), optional(u64)],
    handler: async (ctx: Ctx, [blocks, interval]) => {
      await dev(ctx, 'anvil_mine').mine(blocks ?? 1n, { advanceEach: interval });
      return null;
    },
  }),
  ...both('getAutomine', [], (d) => d.automine),
  ...both('dropTransaction', [hash32], async (d, [hash]: [Uint8Array], p) => {
    const dropped = await d.dropTransaction(hash);
    return p === 'hardhat' ? dropped : null;
  }),
];

const state: RpcMethod<Ctx>[] = [
  ...both(
    'setBalance',
    [address, u256],
    async (d, [a, v]: [Uint8Array, bigint], p) => (await d.setBalance(a, v), ack(p)),
  ),
  ...both('setNonce', [address, u64], async (d, [a, n]: [Uint8Array, bigint], p) => (await d.setNonce(a, n), ack(p))),
  ...both(
    'setCode',
    [address, bytes],
    async (d, [a, code]: [Uint8Array, Uint8Array], p) => (await d.setCode(a, code), ack(p)),
  ),
  ...both(
    'setStorageAt',
    [address, storageSlot, word32],
    async (d, [a, slot, v]: [Uint8Array, Uint8Array, Uint8Array], p) => {
      await d.setStorageAt(a, slot, v);
      return ack(p);
    },
  ),
  ...both('impersonateAccount', [address], (d, [a]: [Uint8Array], p) => (d.impersonate(a), ack(p))),
  // Anvil's; it serves the hardhat_ name too (Hardhat has no such method), null under both.
  ...both('autoImpersonateAccount', [bool], (d, [on]: [boolean]) => (d.setAutoImpersonate(on), null)),
  ...both('stopImpersonatingAccount', [address], (d, [a]: [Uint8Array], p) => (d.stopImpersonating(a), ack(p))),
];

/** anvil_nodeInfo: the head and the chain's environment, in Anvil's field names. */
function nodeInfo(ctx: Ctx): Record<string, unknown> {
  const head = ctx.app.head;
  return {
    currentBlockNumber: quantity(head.number),
    currentBlockTimestamp: Number(head.header.timestamp),
    currentBlockHash: bytesToHex(head.hash),
    hardFork: 'prague',
    transactionOrder: 'fees',
    environment: {
      baseFee: quantity(ctx.app.nextBaseFee()),
      chainId: quantity(ctx.config.evmChainId),
      gasLimit: quantity(head.header.gasLimit),
      gasPrice: quantity(ctx.app.minGasPrice),
    },
    forkConfig: {
      forkUrl: ctx.calls.upstream?.upstream.url ?? null,
      forkBlockNumber: ctx.calls.upstream ? Number(ctx.calls.upstream.point.number) : null,
      forkRetryBackoff: null,
    },
  };
}

const info: RpcMethod<Ctx>[] = [
  defineMethod({
    name: 'anvil_nodeInfo',
    params: [],
    handler: (ctx: Ctx) => (dev(ctx, 'anvil_nodeInfo'), nodeInfo(ctx)),
  }),
  defineMethod({
    name: 'hardhat_metadata',
    params: [],
    handler: (ctx: Ctx) => {
      dev(ctx, 'hardhat_metadata');
      return {
        clientVersion: ctx.clientVersion,
        chainId: Number(ctx.config.evmChainId),
        instanceId: bytesToHex(
          ctx.app.head.number === 0n ? ctx.app.head.hash : (ctx.chain.blockByNumber(0n)?.hash ?? ctx.app.head.hash),
        ),
        latestBlockNumber: Number(ctx.app.head.number),
        latestBlockHash: bytesToHex(ctx.app.head.hash),
      };
    },
  }),
];

const all = [...evm, ...time, ...mining, ...state, ...erc20, ...dumps, ...info, ...resetMethods];

/** The dev toolkit's methods by namespace, for buildMethodTable. */
export const devNamespaces: Record<'evm' | 'anvil' | 'hardhat', RpcMethod<Ctx>[]> = {
  evm: all.filter((m) => m.name.startsWith('evm_')),
  anvil: all.filter((m) => m.name.startsWith('anvil_')),
  hardhat: all.filter((m) => m.name.startsWith('hardhat_')),
};
