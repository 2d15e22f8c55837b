// The CLI's way to a node's state: abci_query over the CometBFT-style RPC (--node), with the SDK CLI's flag checks
// and one clear error line for every failure (the SDK's wording for the ones it has).
import { decodeAccAddress, toBech32 } from '../../primitives/bech32.ts';
import { bareHex } from '../../primitives/hex.ts';

/** A uint64 flag value (as the SDK's flag parser reads it). */
export function uint64(name: string, text: string): bigint {
  if (!/^\d+$/.test(text))
    throw new Error(`invalid argument "${text}" for "--${name}" flag: must be a non-negative integer`);
  // Wraps past 2^64 as the Long-based encoder before it did.
  return BigInt.asUintN(64, BigInt(text));
}

/** The account as bech32: a hex address is converted, a bech32 one checked (SDK wording on failure). */
export function accountArg(text: string, prefix: string): string {
  if (/^0x[0-9a-fA-F]{40}$/.test(text)) return toBech32(Uint8Array.from(Buffer.from(text.slice(2), 'hex')), prefix);
  decodeAccAddress(text, prefix);
  return text;
}

/** http://host:port for a CometBFT-style laddr (tcp://host:port). */
export function nodeUrl(node: string): string {
  const m = /^(tcp|http|https):\/\/([^/]+?)\/?$/.exec(node);
  if (!m) throw new Error(`invalid --node "${node}": expected tcp://host:port`);
  return `${m[1] === 'https' ? 'https' : 'http'}://${m[2]}`;
}

/** Runs abci_query over JSON-RPC; returns the response value bytes or throws one clear line. */
export async function abciQuery(node: string, path: string, data: Uint8Array, height: string): Promise<Uint8Array> {
  const url = nodeUrl(node);
  let body: {
    result?: { response: { code?: number; log?: string; value?: string | null } };
    error?: { message: string; data?: string };
  };
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'abci_query',
        params: { path, data: bareHex(data), height, prove: false },
      }),
      signal: AbortSignal.timeout(30_000),
    });
    body = (await res.json()) as typeof body;
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code;
    const why =
      cause === 'ECONNREFUSED'
        ? `dial tcp ${url.replace(/^https?:\/\//, '')}: connect: connection refused`
        : (e as Error).message;
    throw new Error(`post failed: Post "${url}": ${why}`);
  }
  if (body.error) throw new Error(`${body.error.message}${body.error.data ? `: ${body.error.data}` : ''}`);
  const r = body.result?.response;
  if (!r) throw new Error('malformed abci_query response');
  if (r.code) throw new Error(r.log ?? `query failed with code ${r.code}`);
  return Uint8Array.from(Buffer.from(r.value ?? '', 'base64'));
}
