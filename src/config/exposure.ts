// Start-up warnings about a JSON-RPC server reachable from other machines. Nothing here binds a socket: the
// checks read the configured addresses, so they can be tested without exposing anything.
import { isIP } from 'node:net';
import type { JsonRpcConfig } from './schema.ts';

/** Namespaces whose methods act with the node's keys or settings. */
const PRIVATE = ['personal', 'miner'] as const;

/** True for an address only this machine can reach (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || h === '0:0:0:0:0:0:0:1' || /^::ffff:127\./.test(h);
  return false;
}

function hostOf(address: string): string {
  const i = address.lastIndexOf(':');
  return i < 0 ? address : address.slice(0, i);
}

/** Warnings to print when the HTTP or WS server listens beyond loopback with private namespaces enabled. */
export function exposureWarnings(rpc: Pick<JsonRpcConfig, 'enable' | 'address' | 'wsAddress' | 'api'>): string[] {
  if (!rpc.enable) return [];
  const privateOn = PRIVATE.filter((ns) => rpc.api.includes(ns));
  const out: string[] = [];
  for (const [what, address] of [
    ['HTTP', rpc.address],
    ['WebSocket', rpc.wsAddress],
  ] as const) {
    if (isLoopbackHost(hostOf(address))) continue;
    if (privateOn.length > 0) {
      out.push(
        `warning: JSON-RPC ${what} listens on ${address} (not loopback) with the private namespaces ${privateOn.join(', ')} enabled; ` +
          "they only answer with the bearer token, but anyone who obtains it controls the node's keys — " +
          'bind to 127.0.0.1 or remove them from json-rpc.api',
      );
    }
  }
  return out;
}
