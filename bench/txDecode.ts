// Per-tx CPU of decoding a sent transaction, the bench's own presigned ERC20 transfers (legacy, EIP-155): Kestrel's
// decoder (src/primitives/tx/decode.ts: fields, tx hash and signing hash) against @ethereumjs/tx's createTxFromRLP
// and the tx hash, as the node decoded before, and a stored block's txs read back (chainStore:
// ethereumjs's decode per tx then, ours now). Interleaved rounds, best of each. Run bundled, as the node runs:
//   npx esbuild bench/txDecode.ts --bundle --platform=node --format=esm --packages=external \
//     --outfile=dist/txDecode.mjs && node dist/txDecode.mjs [txs] [rounds]
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import { createTxFromRLP } from '@ethereumjs/tx';
import { keccak256 } from '../src/primitives/keccak.ts';
import { decodeTransaction, signingHashOf } from '../src/primitives/tx/decode.ts';
import { devAccounts, signLegacy } from './lib/tx.ts';

const n = Number(process.argv[2] ?? 2000);
const rounds = Number(process.argv[3] ?? 7);
const common = createCustomCommon({ chainId: 9000 }, Mainnet, { hardfork: Hardfork.Prague });
const [alice] = devAccounts(1);
const token = '0x' + '11'.repeat(20);
// transfer(address,uint256) to a varying holder: the ERC20 workload's calldata shape.
const raws = Array.from({ length: n }, (_, i) => {
  const data = '0xa9059cbb' + (i + 1).toString(16).padStart(64, '0') + (1).toString(16).padStart(64, '0');
  const s = signLegacy(alice!, 9000n, { nonce: i, gas: 60_000n, to: token, value: 0n, data });
  return Uint8Array.from(Buffer.from(s.raw.slice(2), 'hex'));
});

let sink = 0;
const paths: Record<string, (raw: Uint8Array) => void> = {
  // The node then read the signing hash off the bytes itself (signingHash.ts, a few µs): left out here.
  'ethereumjs createTxFromRLP + tx hash': (raw) => {
    const tx = createTxFromRLP(raw, { common });
    sink += keccak256(raw)[0]! + tx.type;
  },
  'kestrel decodeTransaction + signing hash': (raw) => {
    const d = decodeTransaction(raw);
    sink += d.hash[0]! + signingHashOf(d)[0]!;
  },
  'ethereumjs createTxFromRLP (a stored tx read back)': (raw) => {
    sink += Number(createTxFromRLP(raw, { common, freeze: false }).nonce & 1n);
  },
  'kestrel decodeTransaction (a stored tx read back)': (raw) => {
    sink += decodeTransaction(raw).hash[0]!;
  },
};
const best: Record<string, number> = {};
for (let r = 0; r < rounds; r++) {
  for (const [name, f] of Object.entries(paths)) {
    const t0 = process.cpuUsage();
    for (const raw of raws) f(raw);
    const t = process.cpuUsage(t0);
    const us = (t.user + t.system) / n;
    if (r > 0) best[name] = Math.min(best[name] ?? Infinity, us);
  }
}
for (const [name, us] of Object.entries(best)) console.log(`${name}: ${us.toFixed(1)} µs/tx`);
console.log(`(${n} txs, best of ${rounds - 1} rounds after a warm-up; sink ${sink % 7})`);
