// eth_createAccessList: run the call, collect what it touched, run again with that list until the list stops
// changing (an access list changes gas, and gas can change the path a contract takes), as geth does.
import { Address, createContractAddress } from '@ethereumjs/util';
import type { AccessListItem, CallRequest } from '../../primitives/callRequest.ts';
import { bytesToBigint, bytesToHex, hexToBytes } from '../../primitives/hex.ts';

/** The generated list, the gas the call used with it, and the call's failure if it failed. */
export interface AccessListResult {
  accessList: AccessListItem[];
  gasUsed: bigint;
  /** geth's VM error text ("execution reverted", "out of gas", …) when the call failed. */
  error?: string;
}

/** One run of the call: every address it warmed with the slots warmed in it, its gas, its failure if any. */
export interface AccessRun {
  touched: Array<{ address: Uint8Array; storageKeys: bigint[] }>;
  gasUsed: bigint;
  /** ethereumjs' VM error text ("revert", "out of gas", …). */
  error?: string;
}

/** What building an access list needs from the engine. */
export interface AccessListRunner {
  /** Runs the call with this access list, reporting every address and slot it warmed. */
  run(req: CallRequest): AccessRun;
  /** The precompile addresses in force (never listed: they are always warm). */
  precompiles(): Uint8Array[];
  /** The sender's nonce (for the created address of a contract creation). */
  nonce(): bigint;
}

/** Enough rounds for any call seen in practice; each round only ever adds what the previous run touched. */
const MAX_ROUNDS = 16;

const hex = (b: Uint8Array): string => bytesToHex(b);

/** geth's wording of the EVM failures ethereumjs reports. */
export function vmErrorText(error: string): string {
  if (error === 'revert') return 'execution reverted';
  return error;
}

function sameList(a: AccessListItem[], b: AccessListItem[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((x, i) => {
    const y = b[i]!;
    return (
      hex(x.address) === hex(y.address) &&
      x.storageKeys.length === y.storageKeys.length &&
      x.storageKeys.every((k, j) => hex(k) === hex(y.storageKeys[j]!))
    );
  });
}

const slotHex = (k: bigint): string => '0x' + k.toString(16).padStart(64, '0');

/** The reported list, sorted, without the bare sender, recipient (or created address) and precompiles. */
function collect(touched: AccessRun['touched'], excluded: Set<string>): AccessListItem[] {
  const out: AccessListItem[] = [];
  for (const item of touched) {
    const address = hex(item.address);
    const keys = [...new Set(item.storageKeys.map(slotHex))].sort();
    // The sender, recipient and precompiles are warm anyway; their storage slots are not.
    if (excluded.has(address) && keys.length === 0) continue;
    out.push({ address: hexToBytes(address), storageKeys: keys.map((k) => hexToBytes(k)) });
  }
  return out.sort((a, b) => (hex(a.address) < hex(b.address) ? -1 : 1));
}

/** Builds the access list of `req` by running it until its list is stable. */
export async function buildAccessList(req: CallRequest, runner: AccessListRunner): Promise<AccessListResult> {
  const from = req.from ?? new Uint8Array(20);
  const target = req.to ?? createContractAddress(new Address(from), req.nonce ?? runner.nonce()).bytes;
  const excluded = new Set([hex(from), hex(target), ...runner.precompiles().map(hex)]);
  let list = collect(
    (req.accessList ?? []).map((a) => ({ address: a.address, storageKeys: a.storageKeys.map(bytesToBigint) })),
    excluded,
  );
  let r: AccessRun | undefined;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    r = runner.run({ ...req, accessList: list });
    const next = collect(r.touched, excluded);
    if (sameList(next, list)) break;
    list = next;
  }
  return { accessList: list, gasUsed: r!.gasUsed, ...(r!.error !== undefined && { error: vmErrorText(r!.error) }) };
}
