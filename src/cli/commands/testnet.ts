// `kestreld testnet`: lay out a loopback validator network behind CometBFT, and start/stop its supervisor.
import type { Command } from 'commander';
import { DEFAULT_CHAIN_ID } from '../../config/defaults.ts';
import { startTestnet, stopTestnet } from '../../testnet/control.ts';
import { createTestnet, DEFAULT_COMETBFT } from '../../testnet/layout.ts';
import { DEFAULT_BASE_PORT, parseIntFlag, PORT_STRIDE } from '../../testnet/ports.ts';
import { superviseTestnet } from '../../testnet/supervisor.ts';

interface CreateOpts {
  validators: string;
  output: string;
  basePort: string;
  chainId: string;
  power: string;
  dev: boolean;
  cometbft: string;
  timeoutCommit: string;
  timeoutPropose: string;
  staking: boolean;
  genesisParams?: string;
}

/** A JSON object flag, or undefined when absent. */
function parseJsonFlag(text: string | undefined, flag: string): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new Error(`${flag} must be a JSON object: ${(e as Error).message}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`${flag} must be a JSON object`);
  return v as Record<string, unknown>;
}

/** Registers `testnet` (create; start; stop). */
export function registerTestnetCommand(program: Command): void {
  const testnet = program
    .command('testnet')
    .description('a validator network on 127.0.0.1: Kestrel apps behind CometBFT (needs "npm run cometbft:install")');

  testnet
    .command('create', { isDefault: true })
    .description('lay out the validators: CometBFT and Kestrel homes, shared genesis, ports, peers, start.sh/stop.sh')
    .requiredOption('--output <dir>', 'new directory for the testnet')
    .option('--validators <n>', 'number of validators', '4')
    .option(
      '--base-port <port>',
      `first port; node i uses base + ${PORT_STRIDE}*i .. + ${PORT_STRIDE - 1}`,
      String(DEFAULT_BASE_PORT),
    )
    .option('--chain-id <id>', 'chain id of both genesis files', DEFAULT_CHAIN_ID)
    .option('--power <n>', 'voting power of every validator', '10')
    .option('--dev', 'fund the ten well-known development accounts in genesis', false)
    .option('--cometbft <path>', 'CometBFT binary', DEFAULT_COMETBFT)
    .option('--timeout-commit <duration>', 'CometBFT consensus.timeout_commit (block interval)', '200ms')
    .option('--timeout-propose <duration>', 'CometBFT consensus.timeout_propose (wait for a silent proposer)', '1s')
    .option('--no-staking', 'keep the genesis validator set fixed (no staking genesis validators)')
    .option(
      '--genesis-params <json>',
      'module parameters merged into app_state, e.g. {"staking":{"params":{"unbonding_time":"10s"}}}',
    )
    .action((o: CreateOpts) => {
      const m = createTestnet({
        validators: parseIntFlag(o.validators, '--validators'),
        output: o.output,
        basePort: parseIntFlag(o.basePort, '--base-port'),
        chainId: o.chainId,
        power: parseIntFlag(o.power, '--power'),
        dev: o.dev,
        cometbft: o.cometbft,
        timeoutCommit: o.timeoutCommit,
        timeoutPropose: o.timeoutPropose,
        staking: o.staking,
        genesisParams: parseJsonFlag(o.genesisParams, '--genesis-params'),
      });
      console.log(
        `testnet of ${m.nodes.length} validators (chain-id ${m.chainId}, cometbft ${m.cometbftVersion}) in ${o.output}`,
      );
      const row = (cells: Array<string | number>) =>
        cells
          .map((c) => String(c).padEnd(9))
          .join('')
          .trimEnd();
      console.log(row(['node', 'eth-http', 'eth-ws', 'grpc', 'p2p', 'rpc', 'abci', 'app-rpc', 'metrics']));
      for (const n of m.nodes) {
        const p = n.ports;
        console.log(row([n.name, p.ethHttp, p.ethWs, p.grpc, p.p2p, p.rpc, p.abci, p.appRpc, p.metrics]));
      }
      console.log(`start: ${o.output}/start.sh   stop: ${o.output}/stop.sh`);
    });

  testnet
    .command('start <dir>')
    .description('start every validator under a supervisor that restarts a pair (app + cometbft) when either dies')
    .option('--foreground', 'run the supervisor in this process (until SIGINT/SIGTERM)', false)
    .option('--wait <seconds>', 'how long to wait for every node to make a block', '120')
    .action(async (dir: string, o: { foreground: boolean; wait: string }) => {
      if (o.foreground) {
        await superviseTestnet(dir);
        return;
      }
      await startTestnet(dir, parseIntFlag(o.wait, '--wait') * 1000, (l) => console.log(l));
    });

  testnet
    .command('stop <dir>')
    .description('stop the supervisor and every validator it runs (by pid)')
    .action(async (dir: string) => {
      await stopTestnet(dir, (l) => console.log(l));
    });
}
