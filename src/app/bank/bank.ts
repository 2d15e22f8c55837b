// The bank module: multi-denom balances per account. The EVM denom's balance IS the account's balance in the state
// trie at that block (one source of truth: eth_getBalance and the bank query cannot disagree); the other denoms
// come from the bank store.
import { keccak256 } from '../../primitives/hash.ts';
import { concatBytes } from '../../primitives/hex.ts';
import type { BlockRecord } from '../../store/records.ts';
import type { Genesis } from '../genesis.ts';
import type { StateDb } from '../state/stateDb.ts';
import type { Coin } from './proto.ts';
import { sortCoins, type BankStore } from './store.ts';
import { supplyDelta } from '../staking/env.ts';
import { scratchState } from '../staking/views.ts';

/** Balances and supply at any block. */
export class Bank {
  /** Supply of the EVM denom at genesis; slashes burn and inflation mints after it (the staking modules' delta). */
  private readonly evmSupply: bigint;

  constructor(
    private readonly store: BankStore,
    private readonly state: StateDb,
    genesis: Genesis,
  ) {
    this.evmDenom = genesis.evmDenom;
    this.evmSupply = genesis.alloc.reduce((sum, a) => sum + a.balance, 0n);
  }

  /** The denom whose balances live in the EVM account trie. */
  readonly evmDenom: string;

  /** Merkle root of the non-EVM balances (committed in the app hash beside the state root). */
  get root(): Uint8Array {
    return this.store.root;
  }

  /** The app hash after a block: keccak256(stateRoot ‖ bank root), committing to every denom's balances. */
  appHash(block: BlockRecord): Uint8Array {
    return this.appHashOf(block.header.stateRoot);
  }

  /** The app hash of a block whose EVM state root is `stateRoot` (a snapshot being restored has no block yet). */
  appHashOf(stateRoot: Uint8Array): Uint8Array {
    return keccak256(concatBytes(stateRoot, this.store.root));
  }

  /** The EVM denom balance of an account at a block. */
  async evmBalance(addr: Uint8Array, block: BlockRecord): Promise<bigint> {
    return this.state.readView(block.header.stateRoot).account(addr)?.balance ?? 0n;
  }

  /** Every non-zero balance of an account at a block, sorted by denom. */
  async balances(addr: Uint8Array, block: BlockRecord): Promise<Coin[]> {
    const coins = this.store.balances(addr);
    const evm = await this.evmBalance(addr, block);
    if (evm > 0n) coins.push({ denom: this.evmDenom, amount: evm });
    return sortCoins(coins);
  }

  /** One denom's balance of an account at a block (0 when it holds none). */
  async balance(addr: Uint8Array, denom: string, block: BlockRecord): Promise<bigint> {
    if (denom === this.evmDenom) return this.evmBalance(addr, block);
    return this.store.balances(addr).find((c) => c.denom === denom)?.amount ?? 0n;
  }

  /** The EVM denom's supply at a block: genesis's plus what was minted, minus what was burned, since. */
  private evmSupplyAt(block: BlockRecord): bigint {
    return this.evmSupply + supplyDelta(scratchState(this.state.readView(block.header.stateRoot)));
  }

  /** Supply of every denom at a block, sorted by denom (the other denoms' are the same at every height). */
  supply(block: BlockRecord): Coin[] {
    const coins = this.store.supply();
    const evm = this.evmSupplyAt(block);
    if (evm > 0n) coins.push({ denom: this.evmDenom, amount: evm });
    return sortCoins(coins);
  }

  /** Supply of one denom at a block (0 when unknown). */
  supplyOf(denom: string, block: BlockRecord): bigint {
    if (denom === this.evmDenom) return this.evmSupplyAt(block);
    return this.store.supply().find((c) => c.denom === denom)?.amount ?? 0n;
  }
}
