// Cosmos-side clients for integration tests: a @grpc/grpc-js bank client from proto/, the kestreld CLI as a
// child process, and a dev home whose genesis gives one account many denoms.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { REPO_ROOT } from './node.ts';

/** A promisified cosmos.bank.v1beta1.Query client (proto-loader objects: uint64 as strings, bytes as Buffers). */
export interface BankClient {
  call(method: string, req: object, height?: number | string): Promise<{ res: any; height: string | undefined }>;
  close(): void;
}

/** Connects a bank Query client to host:port. */
export function bankClient(address: string): BankClient {
  const pkg = protoLoader.loadSync('cosmos/bank/v1beta1/query.proto', {
    keepCase: true,
    longs: String,
    defaults: true,
    includeDirs: [join(REPO_ROOT, 'proto')],
  });
  const Query = (grpc.loadPackageDefinition(pkg) as any).cosmos.bank.v1beta1.Query;
  const client = new Query(address, grpc.credentials.createInsecure());
  return {
    call(method, req, height) {
      const md = new grpc.Metadata();
      if (height !== undefined) md.set('x-cosmos-block-height', String(height));
      return new Promise((res, rej) => {
        let echoed: string | undefined;
        const c = client[method](
          req,
          md,
          { deadline: Date.now() + 15_000 },
          (err: grpc.ServiceError | null, out: any) => {
            if (err) rej(err);
            else res({ res: out, height: echoed });
          },
        );
        c.on('metadata', (m: grpc.Metadata) => {
          const v = m.get('x-cosmos-block-height');
          if (v.length) echoed = String(v[0]);
        });
      });
    },
    close: () => client.close(),
  };
}

/** Runs `kestreld <args>`; resolves with the exit code and output (never rejects on a non-zero exit). */
export function cli(
  args: string[],
  timeoutMs = 30_000,
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const t0 = Date.now();
  return new Promise((res, rej) => {
    const p = spawn(process.execPath, ['bin/kestreld.js', ...args], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.on('error', rej);
    p.on('exit', (code) => {
      clearTimeout(timer);
      res({ code, stdout, stderr, ms: Date.now() - t0 });
    });
  });
}

/** `kestreld init --dev` into `home`, then gives genesis account `index` extra denoms. */
export async function initHomeWithDenoms(
  home: string,
  index: number,
  coins: Array<{ denom: string; amount: string }>,
): Promise<void> {
  const r = await cli(['init', '--home', home, '--dev']);
  if (r.code !== 0) throw new Error(`kestreld init failed: ${r.stderr}`);
  const path = join(home, 'config', 'genesis.json');
  const g = JSON.parse(readFileSync(path, 'utf8'));
  g.app_state.bank.balances[index].coins.push(...coins);
  writeFileSync(path, JSON.stringify(g, null, 2));
}
