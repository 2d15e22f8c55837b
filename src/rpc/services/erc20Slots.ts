// anvil_dealERC20 / anvil_setERC20Allowance find the storage slot behind balanceOf(owner) or allowance(owner,
// spender) as Anvil does: the slots the view call reads on the token (its access list) are the candidates; the one
// that, overridden with a marker, makes the call return the marker holds the value. Works for any layout the view
// reads directly (Solidity, Vyper, proxies that delegate to an implementation: the storage is the token's).
import type { CallService } from '../../app/evm/call.ts';
import { DevOperationError } from '../../errors/index.ts';
import { bytesEqual, concatBytes, padLeft } from '../../primitives/hex.ts';
import type { BlockRecord } from '../../store/records.ts';

/** A value no real balance holds by chance, written to a candidate slot to see whether the view returns it. */
const MARKER = Uint8Array.from(Buffer.from('c0ffee' + '5a'.repeat(27) + '0dd5', 'hex'));

const selector = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));
/** balanceOf(address) and allowance(address,address). */
const BALANCE_OF = selector('70a08231');
const ALLOWANCE = selector('dd62ed3e');

const word = (addr: Uint8Array) => padLeft(addr, 32);

/** The calldata of balanceOf(owner). */
export function balanceOfCall(owner: Uint8Array): Uint8Array {
  return concatBytes(BALANCE_OF, word(owner));
}

/** The calldata of allowance(owner, spender). */
export function allowanceCall(owner: Uint8Array, spender: Uint8Array): Uint8Array {
  return concatBytes(ALLOWANCE, word(owner), word(spender));
}

/** The token's slot that the view `data` returns, or Anvil's error `Unable to set ERC20 <what>, no slot found`. */
export async function findViewSlot(
  calls: Pick<CallService, 'call' | 'createAccessList'>,
  head: BlockRecord,
  token: Uint8Array,
  data: Uint8Array,
  what: 'balance' | 'allowance',
): Promise<Uint8Array> {
  const req = { to: token, data };
  const { accessList } = await calls.createAccessList(req, head);
  const candidates = accessList.filter((a) => bytesEqual(a.address, token)).flatMap((a) => a.storageKeys);
  for (const slot of candidates) {
    let out: Uint8Array;
    try {
      out = await calls.call(req, head, { state: [{ address: token, stateDiff: [[slot, MARKER]] }] });
    } catch {
      continue; // the marker made the view revert (a checked sum, say): not this slot
    }
    if (out.length >= 32 && bytesEqual(out.subarray(0, 32), MARKER)) return slot;
  }
  throw new DevOperationError(`Unable to set ERC20 ${what}, no slot found`);
}
