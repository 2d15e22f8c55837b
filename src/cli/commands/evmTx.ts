// How `kestreld tx …` sends a precompile call: the sender's key is decrypted from the home's key store, the
// transaction is filled from the node over JSON-RPC (chain id, pending nonce, exact gas estimate — whose failure
// carries the precompile's revert reason —, fees), signed here, sent with eth_sendRawTransaction and followed to
// its receipt. The CLI never runs the app: it reaches a running node over the network only.
import { readFileSync } from 'node:fs';
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import { DEFAULT_CHAIN_ID } from '../../config/defaults.ts';
import { loadConfig } from '../../config/load.ts';
import { KeyStore } from '../../keystore/keystore.ts';
import { signTransaction } from '../../keystore/signer.ts';
import { buildUnsignedTx } from '../../keystore/txDefaults.ts';
import { LIGHT_SCRYPT } from '../../keystore/v3.ts';
import { defaultHome, homePaths } from '../../node/home.ts';
import { decodeAccAddress } from '../../primitives/bech32.ts';
import { bytesToHex, hexToBytes } from '../../primitives/hex.ts';

/** The flags every `tx` command takes. */
export interface TxOpts {
  from: string;
  home?: string;
  dev: boolean;
  passwordFile?: string;
  jsonRpc: string;
  gas: string;
  output: string;
  bech32Prefix?: string;
  receiptTimeout: string;
}

/** What a command needs to know about the home before it builds its call. */
export interface TxContext {
  home: string;
  bech32Prefix: string;
  evmDenom: string;
  from: Uint8Array;
}

/** Reads the home's settings (bech32 prefix, EVM denom) and the sender (0x-hex or bech32). */
export function txContext(o: TxOpts): TxContext {
  if (o.output !== 'text' && o.output !== 'json') throw new Error(`unknown --output "${o.output}" (use text or json)`);
  const home = o.home ?? defaultHome(o.dev);
  const config = loadConfig(home, { dev: o.dev }, DEFAULT_CHAIN_ID);
  const bech32Prefix = o.bech32Prefix ?? config.bech32Prefix;
  const from = /^0x[0-9a-fA-F]{40}$/.test(o.from) ? hexToBytes(o.from) : decodeAccAddress(o.from, bech32Prefix);
  return { home, bech32Prefix, evmDenom: config.evmDenom, from };
}

/** One JSON-RPC call; an error answer becomes one line with the node's message. */
export async function rpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  let body: { result?: T; error?: { message: string } };
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(30_000),
    });
    body = (await res.json()) as typeof body;
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code;
    throw new Error(`cannot reach the node's JSON-RPC at ${url} (--json-rpc): ${cause ?? (e as Error).message}`);
  }
  if (body.error) throw new Error(body.error.message);
  return body.result as T;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

// The first line of --password-file, else of stdin (a terminal is asked without echo by the keys commands only:
// a tx command stays scriptable and never waits on a prompt).
async function passphrase(o: TxOpts): Promise<string> {
  const firstLine = (s: string) => s.split(/\r?\n/, 1)[0] ?? '';
  if (o.passwordFile !== undefined) return firstLine(readFileSync(o.passwordFile, 'utf8'));
  if (process.stdin.isTTY) throw new Error('the key is encrypted: pass --password-file (or the passphrase on stdin)');
  return firstLine(await readStdin());
}

async function decryptSender(ctx: TxContext, o: TxOpts): Promise<Uint8Array> {
  // Reading needs no cost parameters (each file has its own); the store writes nothing here.
  const ks = new KeyStore({ dir: homePaths(ctx.home).keystore, scrypt: LIGHT_SCRYPT, log: () => {} });
  try {
    if (!ks.has(ctx.from))
      throw new Error(`${bytesToHex(ctx.from)} is not in the key store ${ks.dir} (kestreld keys list --home …)`);
    return await ks.decrypt(ctx.from, await passphrase(o));
  } finally {
    ks.close();
  }
}

interface Receipt {
  status: string;
  blockNumber: string;
  gasUsed: string;
  transactionHash: string;
}

/** The SDK CLI's TxResponse fields that mean something for an EVM transaction. */
export interface TxResult {
  height: string;
  txhash: string;
  code: number;
  raw_log: string;
  gas_wanted: string;
  gas_used: string;
}

/** Signs and sends a call of `to` with `data` from the sender; waits for the receipt. */
export async function sendCall(ctx: TxContext, o: TxOpts, to: Uint8Array, data: Uint8Array): Promise<TxResult> {
  const url = o.jsonRpc;
  // The key first: a sender the key store lacks (or a wrong passphrase) is the user's first problem to hear about.
  const key = await decryptSender(ctx, o);
  try {
    return await signAndSend(url, o, key, to, data, ctx.from);
  } finally {
    key.fill(0);
  }
}

async function signAndSend(
  url: string,
  o: TxOpts,
  key: Uint8Array,
  to: Uint8Array,
  data: Uint8Array,
  from: Uint8Array,
): Promise<TxResult> {
  const call = { from: bytesToHex(from), to: bytesToHex(to), data: bytesToHex(data) };
  // The estimate runs the call against the pending state: a refusal surfaces here with its revert reason.
  let gas: bigint;
  if (o.gas === 'auto') gas = BigInt(await rpc<string>(url, 'eth_estimateGas', [call]));
  else if (/^\d+$/.test(o.gas)) gas = BigInt(o.gas);
  else throw new Error(`invalid --gas "${o.gas}": a number or auto`);
  const [chainId, nonce, tip, latest] = await Promise.all([
    rpc<string>(url, 'eth_chainId', []),
    rpc<string>(url, 'eth_getTransactionCount', [call.from, 'pending']),
    rpc<string>(url, 'eth_maxPriorityFeePerGas', []),
    rpc<{ baseFeePerGas?: string }>(url, 'eth_getBlockByNumber', ['latest', false]),
  ]);
  const baseFee = BigInt(latest.baseFeePerGas ?? '0x0');
  const common = createCustomCommon({ chainId: Number(BigInt(chainId)) }, Mainnet, { hardfork: Hardfork.Prague });
  const unsigned = buildUnsignedTx(
    {
      type: 2,
      nonce: BigInt(nonce),
      gasLimit: gas,
      to,
      value: 0n,
      data,
      maxPriorityFeePerGas: BigInt(tip),
      maxFeePerGas: 2n * baseFee + BigInt(tip),
      accessList: [],
    },
    common,
  );
  const raw = signTransaction(unsigned, key).serialize();
  const hash = await rpc<string>(url, 'eth_sendRawTransaction', [bytesToHex(raw)]);
  const deadline = Date.now() + Number(o.receiptTimeout) * 1000;
  for (;;) {
    const r = await rpc<Receipt | null>(url, 'eth_getTransactionReceipt', [hash]);
    if (r) {
      const ok = r.status === '0x1';
      return {
        height: BigInt(r.blockNumber).toString(),
        txhash: hash,
        code: ok ? 0 : 1,
        raw_log: ok ? '' : 'execution reverted',
        gas_wanted: gas.toString(),
        gas_used: BigInt(r.gasUsed).toString(),
      };
    }
    if (Date.now() > deadline)
      throw new Error(`transaction ${hash} sent, but not in a block after ${o.receiptTimeout} s (--receipt-timeout)`);
    await new Promise((res) => setTimeout(res, 200));
  }
}
