// The "app block" bench: 500-tx blocks through KestrelApp.finalizeBlock and commit on a real LevelDB store, so the
// figure includes everything a block costs a node (execution, the state root through the app's trie, receipts, the
// header, and the block's atomic LevelDB batch); the finalizeBlock-only rate is reported beside it. Senders are
// recovered beforehand (the txs are signed and decoded before the clock starts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { createContractAddress, Address } from '@ethereumjs/util';
import type { ExecTx } from '../../src/app/evm/executor.ts';
import { createFastKeccak, createSharedCommon } from '../../src/app/evm/common.ts';
import { DEV_GENESIS, openTestApp, TEST_COMMON } from '../../test/helpers/app.ts';
import { hexToBytes } from '../../src/primitives/hex.ts';
import { compileContracts } from './contracts.ts';
import { execTxOf } from '../../src/app/evm/execTx.testing.ts';
import { processCpuUs } from './procCpu.ts';

/** Transactions per block. */
const BLOCK_TXS = 500;

/** A deterministic private key per holder (never zero, below the curve order). */
function holderKey(i: number): Uint8Array {
  const k = new Uint8Array(32);
  k[0] = 0x11;
  k[30] = (i + 1) >> 8;
  k[31] = (i + 1) & 0xff;
  return k;
}

function word(v: bigint): Uint8Array {
  return hexToBytes('0x' + v.toString(16).padStart(64, '0'));
}

function sign(
  key: Uint8Array,
  nonce: bigint,
  to: Uint8Array | undefined,
  data: Uint8Array,
  value: bigint,
  gas: bigint,
) {
  const tx = createFeeMarket1559Tx(
    { nonce, to, value, data, gasLimit: gas, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n },
    { common: TEST_COMMON },
  ).sign(key);
  // Encoded beforehand too, as the node's decoder does at admission (decodeTx).
  return execTxOf(tx);
}

/**
 * Figures of the app-block bench, per workload: txs per second of CPU time and of wall time for finalizeBlock and
 * commit together (what a block costs), and of CPU time for finalizeBlock alone (before the store write).
 */
export interface AppBlockRates {
  transfersCpu: number;
  transfersWall: number;
  transfersFinalizeCpu: number;
  erc20Cpu: number;
  erc20Wall: number;
  erc20FinalizeCpu: number;
}

/**
 * Runs `rounds` measured 500-tx blocks of value transfers, then of ERC20 transfers (two warm-up blocks each);
 * `only` runs one workload (for a profile of it), the other's figures are then 0.
 */
export async function appBlockRates(rounds: number, only?: 'transfers' | 'erc20'): Promise<AppBlockRates> {
  const dir = mkdtempSync(join(tmpdir(), 'kestrel-appblock-'));
  const holders = Array.from({ length: BLOCK_TXS }, (_, i) => holderKey(i));
  const addrs = holders.map((k) => sign(k, 0n, new Uint8Array(20), new Uint8Array(0), 0n, 21_000n).sender);
  const genesis = {
    ...DEV_GENESIS,
    blockGasLimit: 60_000_000n,
    alloc: addrs.map((address) => ({ address, balance: 10n ** 24n })),
  };
  // The node's Common: the WebAssembly keccak for headers, tx and receipt tries (as src/main.ts builds it).
  const common = createSharedCommon(9000n, await createFastKeccak());
  const node = await openTestApp(dir, () => ({ genesis, common }));
  try {
    const { app } = node;
    const nonces = addrs.map(() => 0n);
    let time = app.head.header.timestamp;
    const produce = async (txs: ExecTx[]): Promise<{ cpu: number; wall: number; finalize: number }> => {
      time += 2n;
      const c0 = processCpuUs();
      const w0 = performance.now();
      const res = await app.finalizeBlock({ txs, time });
      const finalize = processCpuUs() - c0;
      await app.commit();
      const cpu = processCpuUs() - c0;
      const wall = (performance.now() - w0) * 1000;
      if (res.rejected.length > 0 || res.receipts.some((r) => r.status !== 1))
        throw new Error(`bench block failed: ${res.rejected[0]?.error.message ?? 'a tx reverted'}`);
      return { cpu, wall, finalize };
    };
    // Deploy the token with every holder funded.
    const { token } = compileContracts();
    const ctor = [
      word(64n),
      word(10n ** 24n),
      word(BigInt(BLOCK_TXS)),
      ...addrs.map((a) => word(BigInt('0x' + Buffer.from(a).toString('hex')))),
    ];
    const initcode = new Uint8Array([...hexToBytes(token), ...ctor.flatMap((w) => [...w])]);
    await produce([sign(holders[0]!, nonces[0]!++, undefined, initcode, 0n, 1n << 24n)]);
    const tokenAddr = createContractAddress(new Address(addrs[0]!), 0n).bytes;

    const measure = async (make: (i: number) => ExecTx): Promise<[number, number, number]> => {
      let cpu = 0;
      let wall = 0;
      let finalize = 0;
      // Signed up front: the measured blocks then run back to back (and a profile shows only them).
      const blocks = Array.from({ length: rounds + 2 }, () => Array.from({ length: BLOCK_TXS }, (_, i) => make(i)));
      for (let r = -2; r < rounds; r++) {
        const t = await produce(blocks[r + 2]!);
        if (r >= 0) {
          cpu += t.cpu;
          wall += t.wall;
          finalize += t.finalize;
        }
      }
      const rate = (us: number): number => (BLOCK_TXS * rounds) / (us / 1e6);
      return [rate(cpu), rate(wall), rate(finalize)];
    };
    let fresh = 0;
    const recipient = (): Uint8Array => hexToBytes('0x' + (0xbeef0000 + fresh++).toString(16).padStart(40, '0'));
    const [transfersCpu, transfersWall, transfersFinalizeCpu] =
      only === 'erc20'
        ? [0, 0, 0]
        : await measure((i) => sign(holders[i]!, nonces[i]!++, recipient(), new Uint8Array(0), 1000n, 21_000n));
    if (only === 'transfers') {
      return { transfersCpu, transfersWall, transfersFinalizeCpu, erc20Cpu: 0, erc20Wall: 0, erc20FinalizeCpu: 0 };
    }
    const [erc20Cpu, erc20Wall, erc20FinalizeCpu] = await measure((i) => {
      const data = new Uint8Array([
        ...hexToBytes('0xa9059cbb'),
        ...word(BigInt('0x' + Buffer.from(recipient()).toString('hex'))),
        ...word(5n),
      ]);
      return sign(holders[i]!, nonces[i]!++, tokenAddr, data, 0n, 100_000n);
    });
    return { transfersCpu, transfersWall, transfersFinalizeCpu, erc20Cpu, erc20Wall, erc20FinalizeCpu };
  } finally {
    await node.kv.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
