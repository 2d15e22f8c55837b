// Figures for the key store (not part of `npm test`): personal_unlockAccount time at geth's standard scrypt cost,
// eth_sendTransaction requests per second from unlocked accounts (vs eth_sendRawTransaction of the same transfers
// signed client-side), and what --dev adds to a start (dev keys derived, files written on the first start only).
//   node --import tsx test/bench/keystore-figures.ts [transactions=2000] [concurrency=32]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { deriveAccounts, DEV_MNEMONIC } from '../../src/keys/devAccounts.ts';
import { installDevKeys } from '../../src/keystore/dev.ts';
import { KeyStore } from '../../src/keystore/keystore.ts';
import { LIGHT_SCRYPT, STANDARD_SCRYPT, decryptKey, encryptKey } from '../../src/keystore/v3.ts';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { type KestrelNode, post, rpcResult, startNode, waitFor } from '../helpers/node.ts';

const TXS = Number(process.argv[2] ?? 2000);
const CONCURRENCY = Number(process.argv[3] ?? 32);

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `median ${s[Math.floor(s.length / 2)]!.toFixed(0)} ms (min ${s[0]!.toFixed(0)}, max ${s[s.length - 1]!.toFixed(0)}, n=${s.length})`;
};

async function privateCall(node: KestrelNode, method: string, params: unknown[]): Promise<any> {
  const token = readFileSync(join(node.home, 'config', 'auth.token'), 'utf8').trim();
  const r = await post(node.http, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), {
    headers: { authorization: `Bearer ${token}` },
  });
  const j = r.json as { result?: unknown; error?: unknown };
  if (j.error) throw new Error(`${method}: ${JSON.stringify(j.error)}`);
  return j.result;
}

/** Runs `count` calls of `make(i)` with `concurrency` in flight; returns requests per second (failures reported). */
async function pump(count: number, concurrency: number, make: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const failures = new Map<string, number>();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        await make(next++).catch((e: Error) => failures.set(e.message, (failures.get(e.message) ?? 0) + 1));
      }
    }),
  );
  const rate = count / ((performance.now() - t0) / 1000);
  for (const [m, n] of failures) console.log(`  ${n} failed: ${m}`);
  return rate;
}

async function unlockFigures(): Promise<void> {
  const key = Wallet.createRandom().privateKey;
  const pk = Uint8Array.from(Buffer.from(key.slice(2), 'hex'));
  const json = await encryptKey(pk, 'pw', STANDARD_SCRYPT);
  const kdf: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    await decryptKey(json, 'pw');
    kdf.push(performance.now() - t0);
  }
  console.log(`decrypt one v3 file in-process, n=262144 r=8 p=1: ${stats(kdf)}`);
  const node = await startNode({ args: ['--keystore.scrypt-n', '262144', '--keystore.scrypt-p', '1'] });
  try {
    const addr = await privateCall(node, 'personal_importRawKey', [key, 'pw']);
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      await privateCall(node, 'personal_unlockAccount', [addr, 'pw', 60]);
      times.push(performance.now() - t0);
    }
    console.log(`personal_unlockAccount over HTTP at the standard cost: ${stats(times)}`);
  } finally {
    await node.dispose();
  }
}

async function sendFigures(): Promise<void> {
  const node = await startNode();
  try {
    const to = '0x000000000000000000000000000000000000dEaD';
    const one = DEV_ACCOUNTS[1]!.address;
    const rate1 = await pump(TXS, CONCURRENCY, () =>
      rpcResult(node.http, 'eth_sendTransaction', [{ from: one, to, value: '0x1', gas: '0x5208' }]),
    );
    console.log(
      `eth_sendTransaction, one unlocked account, ${TXS} txs, ${CONCURRENCY} in flight: ${rate1.toFixed(0)} req/s`,
    );
    const senders = DEV_ACCOUNTS.slice(2, 10).map((a) => a.address);
    const rateN = await pump(TXS, CONCURRENCY, (i) =>
      rpcResult(node.http, 'eth_sendTransaction', [
        { from: senders[i % senders.length], to, value: '0x1', gas: '0x5208' },
      ]),
    );
    console.log(
      `eth_sendTransaction, ${senders.length} unlocked accounts, ${TXS} txs, ${CONCURRENCY} in flight: ${rateN.toFixed(0)} req/s`,
    );
    const defaults = await pump(Math.min(TXS, 500), CONCURRENCY, () =>
      rpcResult(node.http, 'eth_sendTransaction', [{ from: one, to, value: '0x1' }]),
    );
    console.log(
      `eth_sendTransaction with every default filled (gas, fees, nonce), one account: ${defaults.toFixed(0)} req/s`,
    );
    // Baseline: the same transfers signed in this process and sent raw.
    const w = new Wallet(DEV_ACCOUNTS[0]!.privateKey);
    const nonce0 = Number(await rpcResult(node.http, 'eth_getTransactionCount', [w.address, 'pending']));
    const raws: string[] = [];
    for (let i = 0; i < TXS; i++) {
      raws.push(
        await w.signTransaction({
          to,
          value: 1n,
          gasLimit: 21000n,
          nonce: nonce0 + i,
          chainId: 9000n,
          maxFeePerGas: 10n ** 10n,
          maxPriorityFeePerGas: 0n,
          type: 2,
        }),
      );
    }
    const rawRate = await pump(TXS, CONCURRENCY, (i) => rpcResult(node.http, 'eth_sendRawTransaction', [raws[i]]));
    console.log(`eth_sendRawTransaction baseline (pre-signed), one account: ${rawRate.toFixed(0)} req/s`);
    await waitFor(
      'the pool to drain',
      async () => {
        const s = await rpcResult(node.http, 'txpool_status').catch(() => ({ pending: '0x0' }));
        return s.pending === '0x0' ? true : undefined;
      },
      120_000,
    );
  } finally {
    await node.dispose();
  }
}

async function devStartFigures(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kestrel-devkeys-'));
  try {
    let t0 = performance.now();
    const keys = deriveAccounts(DEV_MNEMONIC, 10);
    const derive = performance.now() - t0;
    t0 = performance.now();
    await installDevKeys(new KeyStore({ dir, scrypt: LIGHT_SCRYPT }), keys);
    const first = performance.now() - t0;
    t0 = performance.now();
    await installDevKeys(new KeyStore({ dir, scrypt: LIGHT_SCRYPT }), deriveAccounts(DEV_MNEMONIC, 10));
    const again = performance.now() - t0;
    console.log(
      `--dev keys: derive 10 keys ${derive.toFixed(0)} ms (cold); first start writes 10 light files ${first.toFixed(0)} ms; later starts (derive + scan + hold) ${again.toFixed(0)} ms`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await devStartFigures();
await unlockFigures();
await sendFigures();
