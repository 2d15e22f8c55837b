// Kestrel as the ABCI application of a real single-validator CometBFT (the pinned binary at .tools/bin/cometbft):
// txs through Kestrel's eth JSON-RPC end up in CometBFT blocks; the eth, gRPC and CLI views agree; the Ethereum
// chain is self-consistent; and after a kill -9 of the app, or a wiped app database, CometBFT's handshake replay
// rebuilds the identical chain.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { JsonRpcProvider, Transaction, Wallet, parseEther } from 'ethers';
import { toBech32 } from '../../src/primitives/bech32.ts';
import { computeBlockHash } from '../helpers/chain.ts';
import { bankClient, cli } from '../helpers/cosmos.ts';
import { freePort, REPO_ROOT, rpc, settlesWithin, startNode, type KestrelNode } from '../helpers/node.ts';

const COMETBFT = join(REPO_ROOT, '.tools', 'bin', 'cometbft');
const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One CometBFT process with captured output. */
class Comet {
  private proc?: ChildProcess;
  private exited?: Promise<number | null>;
  log = '';

  constructor(
    readonly home: string,
    readonly ports: { rpc: number; p2p: number; abci: number },
  ) {}

  get rpcUrl(): string {
    return `http://127.0.0.1:${this.ports.rpc}`;
  }

  start(): void {
    const p = spawn(
      COMETBFT,
      [
        'start',
        '--home',
        this.home,
        '--proxy_app',
        `tcp://127.0.0.1:${this.ports.abci}`,
        '--rpc.laddr',
        `tcp://127.0.0.1:${this.ports.rpc}`,
        '--p2p.laddr',
        `tcp://127.0.0.1:${this.ports.p2p}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const keep = (d: Buffer) => {
      this.log += d.toString();
      if (this.log.length > 400_000) this.log = this.log.slice(-200_000);
    };
    p.stdout!.on('data', keep);
    p.stderr!.on('data', keep);
    this.exited = new Promise((res) => p.on('exit', (code) => res(code)));
    this.proc = p;
  }

  get running(): boolean {
    return this.proc !== undefined && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** Waits for the process to exit by itself (CometBFT stops when its app connection dies). */
  async waitExit(ms: number): Promise<boolean> {
    if (!this.exited) return true;
    return settlesWithin(this.exited, ms);
  }

  async kill(): Promise<void> {
    if (this.running) this.proc!.kill('SIGKILL');
    await this.exited;
  }

  async call<T = any>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const res = await fetch(this.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await res.json()) as { result?: T; error?: unknown };
    if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
    return body.result as T;
  }

  async height(): Promise<number> {
    try {
      return Number((await this.call('status')).sync_info.latest_block_height);
    } catch {
      return -1;
    }
  }

  async waitHeight(h: number, ms = 60_000): Promise<number> {
    const end = Date.now() + ms;
    for (;;) {
      const got = await this.height();
      if (got >= h) return got;
      if (Date.now() > end)
        throw new Error(
          `CometBFT did not reach height ${h} in ${ms} ms (at ${got}); log tail:\n${this.log.slice(-4000)}`,
        );
      await sleep(200);
    }
  }
}

/** Sets `key = value` in one [section] of a TOML text (CometBFT's config.toml keeps one key per line). */
function setToml(text: string, section: string, key: string, value: string): string {
  const lines = text.split('\n');
  let inSection = false;
  for (let i = 0; i < lines.length; i++) {
    const header = /^\[(.+)\]\s*$/.exec(lines[i]!);
    if (header) inSection = header[1] === section;
    else if (inSection && lines[i]!.startsWith(`${key} = `)) {
      lines[i] = `${key} = ${value}`;
      return lines.join('\n');
    }
  }
  throw new Error(`config.toml has no ${section}.${key}`);
}

describe('Kestrel behind a real CometBFT (single validator)', { timeout: 600_000 }, () => {
  let app: KestrelNode;
  let comet: Comet;
  let home: string;
  let abciPort: number;
  const extraArgs = () => [
    '--consensus',
    'cometbft',
    '--abci.laddr',
    `tcp://127.0.0.1:${abciPort}`,
    '--comet.rpc',
    `tcp://127.0.0.1:${comet.ports.rpc}`,
  ];
  const ethHashes = new Map<number, string>();

  before(async () => {
    assert.ok(
      existsSync(COMETBFT),
      `CometBFT binary not found at ${COMETBFT}: run "npm run cometbft:install" (it builds the version pinned in cometbft.version)`,
    );
    abciPort = await freePort();
    comet = new Comet('', { rpc: await freePort(), p2p: await freePort(), abci: abciPort });
    // The app first (it creates its --dev home and genesis), then CometBFT with a genesis for the same chain.
    app = await startNode({
      args: [
        '--consensus',
        'cometbft',
        '--abci.laddr',
        `tcp://127.0.0.1:${abciPort}`,
        '--comet.rpc',
        `tcp://127.0.0.1:${comet.ports.rpc}`,
      ],
    });
    home = app.home;
    const cometHome = join(home, '..', 'cometbft');
    comet = new Comet(cometHome, comet.ports);
    const init = spawnSync(COMETBFT, ['init', '--home', cometHome], { encoding: 'utf8' });
    assert.equal(init.status, 0, init.stderr);
    const kestrelGenesis = JSON.parse(readFileSync(join(home, 'config', 'genesis.json'), 'utf8'));
    const gPath = join(cometHome, 'config', 'genesis.json');
    const g = JSON.parse(readFileSync(gPath, 'utf8'));
    writeFileSync(
      gPath,
      JSON.stringify(
        {
          ...g,
          chain_id: kestrelGenesis.chain_id,
          genesis_time: kestrelGenesis.genesis_time,
          app_state: kestrelGenesis.app_state,
        },
        null,
        2,
      ),
    );
    const cPath = join(cometHome, 'config', 'config.toml');
    let cfg = readFileSync(cPath, 'utf8');
    cfg = setToml(cfg, 'consensus', 'timeout_commit', '"200ms"');
    cfg = setToml(cfg, 'consensus', 'timeout_propose', '"1s"');
    writeFileSync(cPath, cfg);
    comet.start();
    await comet.waitHeight(2);
  });

  after(async () => {
    await comet?.kill();
    await app?.dispose();
  });

  /**
   * CometBFT shuts itself down when an app connection dies ("Did the application crash?"), but its graceful stop
   * can wait on the consensus routine; a supervisor then kills it, and so does this test.
   */
  const stopComet = async () => {
    if (!(await comet.waitExit(15_000))) await comet.kill();
    assert.match(comet.log, /connection terminated\. Did the application crash\?/);
  };

  const provider = () =>
    new JsonRpcProvider(app.http, undefined, { staticNetwork: true, pollingInterval: 100, cacheTimeout: -1 });
  afterEach((t) => {
    if ((t as { passed?: boolean }).passed !== false) return;
    app?.printLogs(`failed: ${(t as { name?: string }).name ?? '?'}`);
    process.stderr.write(`\n===== cometbft log tail =====\n${comet?.log.slice(-6000)}\n`);
  });

  it('mines an ethers transfer sent to Kestrel, and every view agrees on the balances', async () => {
    const p = provider();
    const wallet = new Wallet(DEV_KEY, p);
    const to = Wallet.createRandom().address;
    const tx = await wallet.sendTransaction({ to, value: parseEther('1.5') });
    const receipt = await tx.wait(1, 60_000);
    assert.ok(receipt, 'receipt');
    assert.equal(receipt.status, 1);
    assert.equal(await p.getBalance(to), parseEther('1.5'));
    // The tx is in the CometBFT block of the same height, with code 0 and the receipt's gas.
    const found = await comet.call('tx_search', { query: `ethereum_tx.ethereumTxHash='${tx.hash}'` });
    assert.equal(found.total_count, '1');
    assert.equal(found.txs[0].height, String(receipt.blockNumber));
    assert.equal(found.txs[0].tx_result.code, 0);
    assert.equal(found.txs[0].tx_result.gas_used, String(receipt.gasUsed));
    assert.equal('0x' + Buffer.from(found.txs[0].tx, 'base64').toString('hex'), Transaction.from(tx).serialized);
    // The Ethereum block's coinbase is the CometBFT proposer (the same on every validator).
    const cb = await comet.call('block', { height: String(receipt.blockNumber) });
    const eb = (await rpc<any>(app.http, 'eth_getBlockByNumber', ['0x' + receipt.blockNumber.toString(16), false]))
      .result;
    assert.equal(eb.miner, '0x' + cb.block.header.proposer_address.toLowerCase());
    assert.equal(BigInt(eb.timestamp), BigInt(Math.floor(Date.parse(cb.block.header.time) / 1000)));
    // gRPC and the CLI (through the real CometBFT's abci_query) read the same balance.
    const grpc = bankClient(app.grpc);
    try {
      const { res } = await grpc.call('Balance', {
        address: toBech32(Buffer.from(to.slice(2), 'hex'), 'kestrel'),
        denom: 'akestrel',
      });
      assert.equal(res.balance.amount, parseEther('1.5').toString());
    } finally {
      grpc.close();
    }
    const q = await cli([
      'query',
      'bank',
      'balances',
      to,
      '--node',
      `tcp://127.0.0.1:${comet.ports.rpc}`,
      '--output',
      'json',
    ]);
    assert.equal(q.code, 0, q.stderr);
    assert.deepEqual(JSON.parse(q.stdout).balances, [{ denom: 'akestrel', amount: parseEther('1.5').toString() }]);
  });

  it('holds a future-nonce tx locally (CometBFT refuses gaps) and releases it once the gap is filled', async () => {
    const p = provider();
    const wallet = new Wallet(DEV_KEY, p);
    const to = Wallet.createRandom().address;
    const nonce = await p.getTransactionCount(wallet.address, 'pending');
    const base = { to, gasLimit: 21000n, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n, chainId: 9000n };
    const later = await wallet.signTransaction({ ...base, nonce: nonce + 1, value: 2n });
    const laterHash = await p.send('eth_sendRawTransaction', [later]);
    assert.deepEqual(await p.send('txpool_status', []), { pending: '0x0', queued: '0x1' });
    const unconfirmed = await comet.call('num_unconfirmed_txs');
    assert.equal(unconfirmed.n_txs, '0', 'the gapped tx must not reach CometBFT');
    const first = await wallet.sendTransaction({ ...base, nonce, value: 1n });
    await first.wait(1, 60_000);
    const r2 = await p.waitForTransaction(laterHash, 1, 60_000);
    assert.equal(r2?.status, 1);
    assert.equal(await p.getBalance(to), 3n);
    // A replayed (mined) tx is refused with geth's wording.
    const again = await rpc(app.http, 'eth_sendRawTransaction', [later]);
    assert.match(again.error?.message ?? '', /nonce too low|already known/);
  });

  /** Ethereum blocks 0..h: hashes recomputed from the header fields, chained by parentHash. */
  async function ethChain(h: number): Promise<string[]> {
    const out: string[] = [];
    for (let n = 0; n <= h; n++) {
      const b = (await rpc<any>(app.http, 'eth_getBlockByNumber', ['0x' + n.toString(16), false])).result;
      assert.ok(b, `block ${n}`);
      assert.equal(computeBlockHash(b), b.hash, `block ${n} hash is keccak of its header`);
      if (n > 0) assert.equal(b.parentHash, out[n - 1], `block ${n} parentHash`);
      out.push(b.hash);
    }
    return out;
  }

  it('has a self-consistent Ethereum chain, one block per CometBFT height', async () => {
    const h = await comet.height();
    const hashes = await ethChain(h);
    hashes.forEach((x, i) => ethHashes.set(i, x));
    const head = Number((await rpc<string>(app.http, 'eth_blockNumber')).result);
    assert.ok(head >= h);
  });

  it('comes back after kill -9 of the app mid-stream: CometBFT stops, both restart, the handshake resyncs', async () => {
    const p = provider();
    const wallet = new Wallet(DEV_KEY, p);
    // Keep txs flowing while the app dies.
    const to = Wallet.createRandom().address;
    let nonce = await p.getTransactionCount(wallet.address, 'pending');
    for (let i = 0; i < 3; i++) await wallet.sendTransaction({ to, value: 1n, nonce: nonce++ });
    await app.stop('SIGKILL');
    await stopComet();
    const before = Math.max(...ethHashes.keys());
    app = await startNode({ home, args: extraArgs() });
    comet.start();
    await comet.waitHeight(before + 3);
    const now = await comet.height();
    const hashes = await ethChain(now);
    for (const [n, hash] of ethHashes) assert.equal(hashes[n], hash, `block ${n} unchanged after the restart`);
    hashes.forEach((x, i) => ethHashes.set(i, x));
    assert.match(comet.log, /Completed ABCI Handshake - CometBFT and App are synced/);
  });

  it('replays the whole chain into a wiped app database with identical Ethereum block hashes', async () => {
    await app.stop('SIGKILL');
    await stopComet();
    const known = Math.max(...ethHashes.keys());
    rmSync(join(home, 'data', 'kestrel.db'), { recursive: true, force: true });
    rmSync(join(home, 'data', 'txpool.journal'), { force: true });
    app = await startNode({ home, args: extraArgs() });
    comet.start();
    await comet.waitHeight(known + 2);
    assert.match(comet.log, /ABCI Replay Blocks\s+module=consensus appHeight=0/);
    const hashes = await ethChain(known);
    for (const [n, hash] of ethHashes) assert.equal(hashes[n], hash, `block ${n} identical after a full replay`);
  });
});
