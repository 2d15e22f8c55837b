// Greps everything a validator network wrote (every node's app and CometBFT log, whole files) for its secrets: each
// app's bearer token, each validator and node key, and the private keys of the accounts that signed the load.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeFiles } from '../../src/testnet/manifest.ts';
import type { ManifestNode } from '../../src/testnet/manifest.ts';

/** The parts of a laid-out network the grep reads (a CometNet has them). */
interface LaidOutNet {
  dir: string;
  nodes: ReadonlyArray<{ name: string; spec: ManifestNode }>;
}

/** A secret and where it came from (the name is printed, never the secret). */
interface Secret {
  name: string;
  value: string;
}

function readJsonKey(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  const j = JSON.parse(readFileSync(path, 'utf8')) as { priv_key?: { value?: string } };
  return j.priv_key?.value;
}

/** The network's secrets: tokens, validator keys, node keys, plus `keys` (hex private keys of the senders). */
export function networkSecrets(net: LaidOutNet, keys: readonly Uint8Array[]): Secret[] {
  const out: Secret[] = [];
  for (const n of net.nodes) {
    const f = nodeFiles(net.dir, n.spec);
    const token = join(f.appHome, 'config', 'auth.token');
    if (existsSync(token)) out.push({ name: `${n.name} auth.token`, value: readFileSync(token, 'utf8').trim() });
    for (const file of ['priv_validator_key.json', 'node_key.json']) {
      for (const home of [f.appHome, f.cometHome]) {
        const v = readJsonKey(join(home, 'config', file));
        if (v !== undefined) out.push({ name: `${n.name} ${file}`, value: v });
      }
    }
  }
  keys.forEach((k, i) => out.push({ name: `sender ${i} private key`, value: Buffer.from(k).toString('hex') }));
  // The same validator key sits in both homes: count each secret once.
  const seen = new Set<string>();
  return out.filter((s) => s.value.length >= 16 && !seen.has(s.value) && seen.add(s.value) !== undefined);
}

/** Names of the secrets found in any log of the network (also a 24-char window of each, to catch a split copy). */
export function leakedSecrets(net: LaidOutNet, keys: readonly Uint8Array[]): string[] {
  const logs = net.nodes.flatMap((n) => {
    const f = nodeFiles(net.dir, n.spec);
    return [f.appLog, f.cometLog].filter(existsSync).map((p) => ({ p, text: readFileSync(p, 'utf8') }));
  });
  const found: string[] = [];
  for (const s of networkSecrets(net, keys)) {
    const needles = [s.value, s.value.slice(Math.floor(s.value.length / 2) - 12, Math.floor(s.value.length / 2) + 12)];
    for (const { p, text } of logs) {
      const hay = /^[0-9a-f]+$/i.test(s.value) ? text.toLowerCase() : text;
      if (needles.some((x) => hay.includes(/^[0-9a-f]+$/i.test(s.value) ? x.toLowerCase() : x)))
        found.push(`${s.name} in ${p}`);
    }
  }
  return found;
}
