// `kestreld tx staking create-validator|delegate|unbond|redelegate`, `tx slashing unjail` and `tx distribution
// withdraw-rewards`: the Cosmos SDK CLI's operator commands, sent as calls of the chain's precompiles (Cosmos EVM's
// ABIs at 0x…0800, 0x…0806, 0x…0801) signed with a key-store account. create-validator reads the consensus key from
// CometBFT's priv_validator_key.json unless --pubkey gives it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { abiEncode, parseType, selectorOf, type AbiValue } from '../../primitives/abi.ts';
import { concatBytes, hexToBytes } from '../../primitives/hex.ts';
import { toYaml } from '../output/yaml.ts';
import { sendCall, txContext, type TxContext, type TxOpts } from './evmTx.ts';
import { validatorArg } from './queryStaking.ts';

/** The precompile methods the commands call: address, name and input types (Cosmos EVM's ABIs). */
export const PRECOMPILE_CALLS = {
  createValidator: {
    to: 0x800,
    name: 'createValidator',
    inputs: [
      '(string,string,string,string,string)',
      '(uint256,uint256,uint256)',
      'uint256',
      'address',
      'string',
      'uint256',
    ],
  },
  delegate: { to: 0x800, name: 'delegate', inputs: ['address', 'string', 'uint256'] },
  undelegate: { to: 0x800, name: 'undelegate', inputs: ['address', 'string', 'uint256'] },
  redelegate: { to: 0x800, name: 'redelegate', inputs: ['address', 'string', 'string', 'uint256'] },
  unjail: { to: 0x806, name: 'unjail', inputs: ['address'] },
  withdrawDelegatorRewards: { to: 0x801, name: 'withdrawDelegatorRewards', inputs: ['address', 'string'] },
  withdrawValidatorCommission: { to: 0x801, name: 'withdrawValidatorCommission', inputs: ['string'] },
} as const;

type CallName = keyof typeof PRECOMPILE_CALLS;

/** The calldata of a precompile call. */
export function encodeCall(name: CallName, values: AbiValue[]): Uint8Array {
  const types = PRECOMPILE_CALLS[name].inputs.map(parseType);
  return concatBytes(selectorOf(PRECOMPILE_CALLS[name].name, types), abiEncode(types, values));
}

function precompileAddress(n: number): Uint8Array {
  return hexToBytes(`0x${n.toString(16).padStart(40, '0')}`);
}

/** An amount of the bond denom: "100akestrel", or a bare integer of its base unit. */
export function bondAmount(text: string, denom: string): bigint {
  const m = /^(\d+)([a-zA-Z][a-zA-Z0-9/:._-]{2,127})?$/.exec(text);
  if (!m) throw new Error(`invalid amount "${text}": expected an integer and the bond denom, e.g. 1000${denom}`);
  if (m[2] !== undefined && m[2] !== denom) throw new Error(`invalid denom ${m[2]}: the bond denom is ${denom}`);
  const n = BigInt(m[1]!);
  if (n === 0n) throw new Error(`invalid amount "${text}": must be positive`);
  return n;
}

/** A decimal fraction ("0.1") as a LegacyDec (scaled by 10^18). */
export function decArg(flag: string, text: string): bigint {
  if (!/^\d+(\.\d{1,18})?$/.test(text)) throw new Error(`invalid --${flag} "${text}": a decimal such as 0.05`);
  const [whole, frac = ''] = text.split('.');
  return BigInt(whole!) * 10n ** 18n + BigInt(frac.padEnd(18, '0'));
}

/**
 * The ed25519 consensus key (base64, as the precompile takes it) from --pubkey (base64 or the SDK's JSON
 * {"@type":"/cosmos.crypto.ed25519.PubKey","key":"…"}), else from config/priv_validator_key.json of the CometBFT home.
 */
export function consensusPubkey(pubkey: string | undefined, cometHome: string): string {
  let key: string;
  if (pubkey !== undefined) {
    const t = pubkey.trim();
    if (t.startsWith('{')) {
      const pk = JSON.parse(t) as { '@type'?: string; key?: string };
      if (pk['@type'] !== '/cosmos.crypto.ed25519.PubKey')
        throw new Error(`unsupported --pubkey type ${JSON.stringify(pk['@type'])}: want /cosmos.crypto.ed25519.PubKey`);
      key = String(pk.key ?? '');
    } else key = t;
  } else {
    const path = join(cometHome, 'config', 'priv_validator_key.json');
    if (!existsSync(path))
      throw new Error(`no consensus key: ${path} does not exist (pass --cometbft-home or --pubkey)`);
    const file = JSON.parse(readFileSync(path, 'utf8')) as { pub_key?: { type?: string; value?: string } };
    // Kestrel's own home holds its secp256k1 account key under the same name: not a consensus key.
    if (file.pub_key?.type !== 'tendermint/PubKeyEd25519')
      throw new Error(
        `${path} is not CometBFT's ed25519 validator key (no pub_key of type tendermint/PubKeyEd25519); pass the CometBFT home with --cometbft-home, or --pubkey`,
      );
    key = String(file.pub_key.value);
  }
  const bytes = Buffer.from(key, 'base64');
  if (bytes.length !== 32 || bytes.toString('base64') !== key)
    throw new Error(`invalid consensus public key "${key}": want the base64 of a 32-byte ed25519 key`);
  return key;
}

function withTxOptions(cmd: Command): Command {
  return cmd
    .requiredOption('--from <address>', 'the signing account (0x-hex or bech32), held in the home key store')
    .option('--home <dir>', 'node home directory holding the key store (default ~/.kestrel, or ~/.kestrel-dev)')
    .option('--dev', 'use the dev home (~/.kestrel-dev)', false)
    .option('--password-file <path>', "the key's passphrase: first line of this file (else the first line of stdin)")
    .option('--json-rpc <url>', "the node's JSON-RPC endpoint", 'http://127.0.0.1:8545')
    .option('--gas <n>', 'gas limit, or auto (an exact estimate)', 'auto')
    .option('--receipt-timeout <seconds>', 'how long to wait for the block', '60')
    .option('--bech32-prefix <hrp>', "the chain's account prefix (default: bech32-prefix in the home's app.toml)")
    .option('-o, --output <format>', 'text (YAML) or json', 'text');
}

/** Sends one call; a later one of the same command prints as the next line (json) or YAML document (text). */
async function send(o: TxOpts, build: (ctx: TxContext) => [CallName, AbiValue[]], later = false): Promise<void> {
  const ctx = txContext(o);
  const [name, args] = build(ctx);
  const res = await sendCall(ctx, o, precompileAddress(PRECOMPILE_CALLS[name].to), encodeCall(name, args));
  const text = o.output === 'json' ? JSON.stringify(res) + '\n' : toYaml({ ...res });
  process.stdout.write(later && o.output !== 'json' ? `---\n${text}` : text);
  // Reverted in its block although the estimate passed (the state moved in between): the command failed.
  if (res.code !== 0) throw new Error(`transaction ${res.txhash} reverted in block ${res.height}`);
}

interface CreateOpts extends TxOpts {
  amount: string;
  pubkey?: string;
  cometbftHome?: string;
  moniker: string;
  identity: string;
  website: string;
  securityContact: string;
  details: string;
  commissionRate: string;
  commissionMaxRate: string;
  commissionMaxChangeRate: string;
  minSelfDelegation: string;
}

function registerStakingTx(tx: Command): void {
  const staking = tx.command('staking').description('staking transactions (the staking precompile at 0x…0800)');
  withTxOptions(staking.command('create-validator'))
    .description('make the --from account a validator operator, self-delegating --amount')
    .requiredOption('--amount <coin>', 'self-delegation, e.g. 100000000000000000000akestrel')
    .requiredOption('--moniker <name>', "the validator's name")
    .option('--pubkey <key>', 'consensus key: base64 ed25519, or {"@type":"/cosmos.crypto.ed25519.PubKey","key":"…"}')
    .option(
      '--cometbft-home <dir>',
      'CometBFT home whose config/priv_validator_key.json holds the key (default --home)',
    )
    .option('--identity <text>', 'identity signature (ex. Keybase)', '')
    .option('--website <url>', 'website', '')
    .option('--security-contact <email>', 'security contact', '')
    .option('--details <text>', 'details', '')
    .option('--commission-rate <dec>', 'initial commission rate', '0.1')
    .option('--commission-max-rate <dec>', 'maximum commission rate', '0.2')
    .option('--commission-max-change-rate <dec>', 'maximum daily commission change', '0.01')
    .option('--min-self-delegation <int>', 'minimum self-delegation the validator must keep', '1')
    .action((o: CreateOpts) =>
      send(o, (ctx) => {
        const amount = bondAmount(o.amount, ctx.evmDenom);
        if (!/^\d+$/.test(o.minSelfDelegation))
          throw new Error(`invalid --min-self-delegation "${o.minSelfDelegation}": a positive integer`);
        const pubkey = consensusPubkey(o.pubkey, o.cometbftHome ?? ctx.home);
        const rates = [
          decArg('commission-rate', o.commissionRate),
          decArg('commission-max-rate', o.commissionMaxRate),
          decArg('commission-max-change-rate', o.commissionMaxChangeRate),
        ];
        const description = [o.moniker, o.identity, o.website, o.securityContact, o.details];
        return ['createValidator', [description, rates, BigInt(o.minSelfDelegation), ctx.from, pubkey, amount]];
      }),
    );
  withTxOptions(staking.command('delegate <validator-addr> <amount>'))
    .description('delegate tokens of the --from account to a validator')
    .action((val: string, amount: string, o: TxOpts) =>
      send(o, (ctx) => ['delegate', [ctx.from, validatorArg(val, ctx.bech32Prefix), bondAmount(amount, ctx.evmDenom)]]),
    );
  withTxOptions(staking.command('unbond <validator-addr> <amount>'))
    .description('start unbonding tokens delegated to a validator (paid back after the unbonding time)')
    .action((val: string, amount: string, o: TxOpts) =>
      send(o, (ctx) => [
        'undelegate',
        [ctx.from, validatorArg(val, ctx.bech32Prefix), bondAmount(amount, ctx.evmDenom)],
      ]),
    );
  withTxOptions(staking.command('redelegate <src-validator-addr> <dst-validator-addr> <amount>'))
    .description('move delegated tokens from one validator to another at once')
    .action((src: string, dst: string, amount: string, o: TxOpts) =>
      send(o, (ctx) => [
        'redelegate',
        [
          ctx.from,
          validatorArg(src, ctx.bech32Prefix),
          validatorArg(dst, ctx.bech32Prefix),
          bondAmount(amount, ctx.evmDenom),
        ],
      ]),
    );
}

/** Registers `tx staking …`, `tx slashing unjail` and `tx distribution withdraw-rewards`. */
export function registerTxCommands(program: Command): void {
  const tx = program.command('tx').description('send transactions to a node (precompile calls over JSON-RPC)');
  registerStakingTx(tx);
  const slashing = tx.command('slashing').description('slashing transactions (the slashing precompile at 0x…0806)');
  withTxOptions(slashing.command('unjail'))
    .description('unjail the --from validator once its jail time has passed')
    .action((o: TxOpts) => send(o, (ctx) => ['unjail', [ctx.from]]));
  const distribution = tx
    .command('distribution')
    .description('distribution transactions (the distribution precompile at 0x…0801)');
  withTxOptions(distribution.command('withdraw-rewards <validator-addr>'))
    .description("withdraw the --from account's rewards from a validator")
    .option(
      '--commission',
      "also withdraw the validator's commission (--from must be its operator; a second transaction, printed after the first)",
    )
    .action((val: string, o: TxOpts & { commission?: boolean }) =>
      send(o, (ctx) => ['withdrawDelegatorRewards', [ctx.from, validatorArg(val, ctx.bech32Prefix)]]).then(() =>
        o.commission
          ? send(o, (ctx) => ['withdrawValidatorCommission', [validatorArg(val, ctx.bech32Prefix)]], true)
          : undefined,
      ),
    );
}
