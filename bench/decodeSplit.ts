// Where a tx's decoding time goes on the thread that decodes it, and what moving the decoding itself to a recovery
// worker would cost: per tx, prepareTx (RLP, field checks, tx hash and signing hash: the main thread's share once
// recovery is on a worker), the native sender recovery, the sender's keccak, the decode cache's key, and a
// structured clone of the decoded Transaction (what a worker would have to hand back; a clone in one thread
// serializes and deserializes, the main thread would pay the deserializing half). Interleaved rounds, best of each.
//   node --import tsx bench/decodeSplit.ts [txs] [rounds]
import { keccak256 } from '../src/primitives/keccak.ts';
import { prepareTx, recoverNow, recoveredTx } from '../src/app/evm/validate.ts';
import { testRules } from '../src/app/evm/validate.testing.ts';
import { devAccounts, signLegacy } from './lib/tx.ts';

const n = Number(process.argv[2] ?? 2000);
const rounds = Number(process.argv[3] ?? 7);
const rules = testRules({ baseFee: 0n });
const accounts = devAccounts(10);
const token = '0x' + '11'.repeat(20);
/** Value transfers and ERC20 transfer(address,uint256) calls, alternating, ten senders. */
const raws = Array.from({ length: n }, (_, i) => {
  const erc20 = i % 2 === 1;
  const data = erc20 ? '0xa9059cbb' + (i + 1).toString(16).padStart(64, '0') + '1'.padStart(64, '0') : '0x';
  const to = erc20 ? token : '0x' + (i + 1).toString(16).padStart(40, '0');
  const s = signLegacy(accounts[i % 10]!, 9000n, { nonce: Math.floor(i / 10), gas: 60_000n, to, value: 1n, data });
  return Uint8Array.from(Buffer.from(s.raw.slice(2), 'hex'));
});
const prepared = raws.map((r) => prepareTx(r, rules));
const keys = prepared.map((u) => recoverNow(u.job));

let sink = 0;
const steps: Record<string, () => void> = {
  'prepareTx (decode, checks, tx hash, signing hash)': () => {
    for (const r of raws) sink += prepareTx(r, rules).hash[0]!;
  },
  'sender recovery (native ecrecover)': () => {
    for (const u of prepared) sink += recoverNow(u.job)[0]!;
  },
  "sender's keccak (recoveredTx)": () => {
    for (let i = 0; i < n; i++) sink += recoveredTx(prepared[i]!, keys[i]!).sender[0]!;
  },
  'decode cache key (keccak of the raw bytes)': () => {
    for (const r of raws) sink += keccak256(r)[0]!;
  },
  'structured clone of the decoded Transaction': () => {
    for (const u of prepared) sink += Number(structuredClone(u.tx).nonce & 1n);
  },
};
const best = new Map<string, number>();
for (let r = 0; r < rounds; r++) {
  for (const [name, fn] of Object.entries(steps)) {
    const t0 = process.cpuUsage();
    fn();
    const d = process.cpuUsage(t0);
    const us = (d.user + d.system) / n;
    best.set(name, Math.min(best.get(name) ?? Infinity, us));
  }
}
console.log(`${n} legacy txs (half value transfers, half ERC20 calls), best of ${rounds} rounds, CPU µs per tx:`);
for (const [name, us] of best) console.log(`  ${name}: ${us.toFixed(1)}`);
if (sink === 0.5) console.log('');
