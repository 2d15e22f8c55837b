// executeTransaction: the tx-level rules around the interpreter (revm's "handler"): validation, buying gas,
// warm sets, EIP-7702 authorizations, the top frame, refunds (EIP-3529), the EIP-7623 floor and fee payment.
import type { Address, BlockEnv, ExecOptions, Precompile, Tx, TxOutcome, TxResult } from '../types.ts';
import type { WorldState } from '../state/world.ts';
import { statefulAddresses } from '../host.ts';
import { EMPTY_BYTES } from '../../primitives/bytes.ts';
import { createAddress, delegationTarget } from '../addresses.ts';
import { execCall, execCreate } from '../frame.ts';
import { analysisCache, analyze } from '../interpreter/analysis.ts';
import {
  Evm,
  isSuccess,
  K_CALL,
  K_CREATE,
  S_COLLISION,
  setGas,
  STATUS_NAMES,
  totalGas,
} from '../interpreter/context.ts';
import { forkRules } from '../forks.ts';
import { applyAuthorizations } from './authorization.ts';
import { validateTx } from './validate.ts';

/** Runs one transaction on `world`. An invalid tx leaves `world` untouched. */
export function runTransaction(
  world: WorldState,
  block: BlockEnv,
  tx: Tx,
  opts: ExecOptions,
  precompiles: ReadonlyMap<Address, Precompile>,
): TxOutcome {
  const v = validateTx(world, block, tx, opts);
  if (!v.ok) return v;
  const tracer = opts.tracer;
  tracer?.txStart?.(tx);

  const rules = forkRules(opts.fork);
  world.beginTx(rules.lastPrecompile, rules.extraPrecompile, statefulAddresses(precompiles));
  const sender = world.account(tx.from);
  const price = v.effectiveGasPrice;
  const senderNonce = sender.nonce;
  world.setNonce(sender, senderNonce + 1n);
  world.setBalance(sender, sender.balance - tx.gasLimit * price - v.blobGas * block.blobBaseFee);

  // EIP-2929/2930/3651 warm set.
  world.warmAddress(sender);
  world.warmAddress(world.account(block.coinbase));
  for (const item of tx.accessList) {
    const a = world.account(item.address);
    world.warmAddress(a);
    for (const k of item.storageKeys) world.warmSlot(a, k);
  }
  const authRefund = tx.type === 4 ? applyAuthorizations(world, block, tx.authorizationList) : 0;

  const ev = new Evm(world, block, opts.fork, tracer, precompiles, tx.from, price, tx.blobVersionedHashes);
  if (opts.deadline !== undefined) ev.deadline = opts.deadline;
  const f = ev.frame(0);
  f.caller = tx.from;
  f.value = tx.value;
  f.isStatic = false;
  setGas(f, tx.gasLimit - v.intrinsic);
  let createdAddress: Address | undefined;
  if (tx.to === undefined) {
    const addr = createAddress(tx.from, senderNonce);
    const acc = world.account(addr);
    world.warmAddress(acc);
    f.kind = K_CREATE;
    f.address = addr;
    f.codeAddress = addr;
    f.input = EMPTY_BYTES;
    f.code = tx.data;
    f.analysis = tx.data.length === 0 ? undefined : analyze(tx.data);
    if (acc.nonce !== 0n || !acc.codeEmpty || world.hasStorage(acc)) {
      f.status = S_COLLISION;
      setGas(f, 0n);
    } else {
      execCreate(ev, f);
      if (isSuccess(f.status)) createdAddress = addr;
    }
  } else {
    const to = world.account(tx.to);
    world.warmAddress(to);
    f.kind = K_CALL;
    f.address = tx.to;
    f.codeAddress = tx.to;
    f.input = tx.data;
    let codeAcc = to;
    let delegated = false;
    if (!to.codeEmpty) {
      const d = delegationTarget(world.code(to));
      if (d >= 0n) {
        codeAcc = world.account(d);
        world.warmAddress(codeAcc);
        f.codeAddress = d;
        delegated = true;
      }
    }
    const precompile = delegated ? undefined : precompiles.get(tx.to);
    f.code = precompile === undefined ? world.code(codeAcc) : EMPTY_BYTES;
    f.analysis = f.code.length === 0 ? undefined : analysisCache.get(codeAcc.codeHash, f.code);
    execCall(ev, f, true, precompile);
  }

  const gasLeft = totalGas(f);
  const usedBeforeRefund = tx.gasLimit - gasLeft;
  const refundCounter = BigInt(ev.refund + authRefund);
  const cap = usedBeforeRefund / 5n;
  const refund = refundCounter < cap ? refundCounter : cap;
  let gasUsed = usedBeforeRefund - refund;
  if (gasUsed < v.floor) gasUsed = v.floor;
  world.setBalance(sender, sender.balance + (tx.gasLimit - gasUsed) * price);
  const perGas = opts.rules.burnBaseFee ? price - block.baseFee : price;
  const coinbase = world.account(opts.rules.feeRecipient ?? block.coinbase);
  const fee = perGas > 0n ? gasUsed * perGas : 0n;
  if (fee !== 0n) world.setBalance(coinbase, coinbase.balance + fee);
  world.touch(coinbase);
  world.finalizeTx();

  const ok = isSuccess(f.status);
  const result: TxResult = {
    status: STATUS_NAMES[f.status]!,
    gasUsed,
    gasRefund: refund,
    output: f.output,
    logs: ok ? ev.logs : [],
  };
  if (createdAddress !== undefined) result.createdAddress = createdAddress;
  ev.release();
  tracer?.txEnd?.(result);
  return { ok: true, result };
}
