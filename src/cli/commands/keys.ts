// `kestreld keys list|add|import`: the node's key store, on disk (like geth's `account` commands, these work on
// <home>/keystore directly, whether or not the node runs; a running node picks new files up by itself).
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { DEFAULT_CHAIN_ID } from '../../config/defaults.ts';
import { loadConfig } from '../../config/load.ts';
import { KeyStore } from '../../keystore/keystore.ts';
import { defaultHome, homePaths } from '../../node/home.ts';
import { bytesToHex } from '../../primitives/hex.ts';

interface KeyOpts {
  home?: string;
  dev: boolean;
  passwordFile?: string;
  output?: string;
}

function openStore(opts: KeyOpts): KeyStore {
  const home = opts.home ?? defaultHome(opts.dev);
  const config = loadConfig(home, { dev: opts.dev }, DEFAULT_CHAIN_ID);
  return new KeyStore({
    dir: homePaths(home).keystore,
    scrypt: { n: config.keystore.scryptN, r: 8, p: config.keystore.scryptP },
  });
}

/** Reads a line from the terminal without echoing it. */
function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(question);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding('utf8');
  return new Promise((res) => {
    let text = '';
    const onData = (chunk: string) => {
      for (const c of chunk) {
        if (c === '\r' || c === '\n') {
          stdin.setRawMode(false);
          stdin.pause();
          stdin.off('data', onData);
          process.stderr.write('\n');
          res(text);
          return;
        }
        if (c === '\u0003') process.exit(130);
        if (c === '\u007f' || c === '\b') text = text.slice(0, -1);
        else text += c;
      }
    };
    stdin.on('data', onData);
  });
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The passphrase: first line of --password-file, else a hidden prompt (twice), else the first line of stdin. */
async function passphrase(opts: KeyOpts): Promise<string> {
  const firstLine = (s: string) => s.split(/\r?\n/, 1)[0] ?? '';
  if (opts.passwordFile !== undefined) return firstLine(readFileSync(opts.passwordFile, 'utf8'));
  if (process.stdin.isTTY) {
    const a = await promptHidden('Passphrase: ');
    const b = await promptHidden('Repeat passphrase: ');
    if (a !== b) throw new Error('passphrases do not match');
    return a;
  }
  return firstLine(await readStdin());
}

/** Parses a hex private key (64 digits, 0x optional) as geth's `account import` reads a key file. */
function parseKeyFile(path: string): Uint8Array {
  const text = readFileSync(path, 'utf8').trim().replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]{64}$/.test(text)) throw new Error(`${path}: expected a hex private key of 64 digits`);
  return Uint8Array.from(Buffer.from(text, 'hex'));
}

function common(cmd: Command): Command {
  return cmd
    .option('--home <dir>', 'node home directory (default ~/.kestrel, or ~/.kestrel-dev with --dev)')
    .option('--dev', 'use the dev home (~/.kestrel-dev) and its light scrypt cost', false);
}

/** Registers `keys list`, `keys add` and `keys import`. */
export function registerKeysCommands(program: Command): void {
  const keys = program
    .command('keys')
    .description('accounts in the node key store (<home>/keystore, Web3 Secret Storage v3 files)');
  common(keys.command('list'))
    .description('list the accounts of the key store')
    .option('--output <format>', 'text or json', 'text')
    .action((opts: KeyOpts) => {
      const files = openStore(opts).files();
      if (opts.output === 'json') {
        console.log(JSON.stringify(files.map((f) => ({ address: bytesToHex(f.address), file: f.path }))));
        return;
      }
      files.forEach((f, i) => console.log(`#${i}  ${bytesToHex(f.address)}  keystore://${f.path}`));
    });
  common(keys.command('add'))
    .description('create a new random key, encrypted with a passphrase, and print its address')
    .option('--password-file <path>', 'read the passphrase from the first line of this file')
    .action(async (opts: KeyOpts) => {
      const ks = openStore(opts);
      console.log(bytesToHex(await ks.newAccount(await passphrase(opts))));
    });
  common(keys.command('import <keyfile>'))
    .description('import the hex private key held in <keyfile>, encrypted with a passphrase, and print its address')
    .option('--password-file <path>', 'read the passphrase from the first line of this file')
    .action(async (keyfile: string, opts: KeyOpts) => {
      const key = parseKeyFile(keyfile);
      try {
        const ks = openStore(opts);
        console.log(bytesToHex(await ks.importKey(key, await passphrase(opts))));
      } finally {
        key.fill(0);
      }
    });
}
