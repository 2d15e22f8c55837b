// Forking (issue 29 item 1): a Kestrel dev node holding a constant-product pool is the upstream; a second Kestrel
// started with --fork-url (through a counting proxy) swaps locally; the result equals the same swap done on the
// upstream afterwards, the upstream sees no write, 1,000 untouched accounts cost a bounded number of batched
// requests, a restart reads the disk cache (no request), and a dead upstream is a JSON-RPC error naming it.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import {
  AbiCoder,
  Contract,
  ContractFactory,
  Interface,
  keccak256,
  JsonRpcProvider,
  Wallet,
  type InterfaceAbi,
} from 'ethers';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { type KestrelNode, printLogsOnFailure, rpc, rpcResult, startNode } from '../helpers/node.ts';
import { compileSource } from '../helpers/solc.ts';

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Token {
    event Transfer(address indexed from, address indexed to, uint256 value);
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    constructor(uint256 supply) { balanceOf[msg.sender] = supply; }
    function approve(address s, uint256 v) external returns (bool) { allowance[msg.sender][s] = v; return true; }
    function transfer(address to, uint256 v) external returns (bool) {
        balanceOf[msg.sender] -= v; balanceOf[to] += v; emit Transfer(msg.sender, to, v); return true;
    }
    function transferFrom(address f, address to, uint256 v) external returns (bool) {
        allowance[f][msg.sender] -= v; balanceOf[f] -= v; balanceOf[to] += v; emit Transfer(f, to, v); return true;
    }
}
contract Pair {
    Token public immutable token0;
    Token public immutable token1;
    uint256 public reserve0;
    uint256 public reserve1;
    constructor(Token a, Token b) { token0 = a; token1 = b; }
    function addLiquidity(uint256 a0, uint256 a1) external {
        token0.transferFrom(msg.sender, address(this), a0);
        token1.transferFrom(msg.sender, address(this), a1);
        reserve0 += a0; reserve1 += a1;
    }
    function getAmountOut(uint256 amountIn) public view returns (uint256) {
        uint256 inFee = amountIn * 997;
        return inFee * reserve1 / (reserve0 * 1000 + inFee);
    }
    function swap0For1(uint256 amountIn, address to) external returns (uint256 out) {
        out = getAmountOut(amountIn);
        token0.transferFrom(msg.sender, address(this), amountIn);
        token1.transfer(to, out);
        reserve0 += amountIn; reserve1 -= out;
    }
}
contract Toucher {
    function sumBalances(address[] calldata accounts) external view returns (uint256 s) {
        for (uint256 i = 0; i < accounts.length; i++) s += accounts[i].balance;
    }
    function hashOf(uint256 n) external view returns (bytes32) { return blockhash(n); }
}
`;

/** A JSON-RPC call and its answer as they pass the proxy. */
type Call = { method: string; params: unknown[]; id: number };
type Answer = { id: number; result?: unknown; error?: unknown };

/**
 * A proxy in front of the upstream that counts the HTTP requests the fork sends and the calls per method;
 * `tamper` may rewrite each batch's answers (a lying or limited upstream).
 */
async function countingProxy(
  target: string,
  tamper?: (calls: Call[], answers: Answer[]) => void,
): Promise<{ url: string; count: () => number; methods: Map<string, number>; server: Server }> {
  let n = 0;
  const methods = new Map<string, number>();
  const server = createServer((req, res) => {
    n++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const parsed = JSON.parse(body.toString()) as Call | Call[];
      const calls = Array.isArray(parsed) ? parsed : [parsed];
      for (const c of calls) methods.set(c.method, (methods.get(c.method) ?? 0) + 1);
      fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then(async (r) => {
          let out = Buffer.from(await r.arrayBuffer());
          if (tamper) {
            const answers = JSON.parse(out.toString()) as Answer | Answer[];
            const list = Array.isArray(answers) ? answers : [answers];
            tamper(calls, list);
            out = Buffer.from(JSON.stringify(answers));
          }
          res.writeHead(r.status, { 'content-type': 'application/json' });
          res.end(out);
        })
        .catch(() => {
          res.writeHead(502);
          res.end();
        });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, count: () => n, methods, server };
}

const E18 = 10n ** 18n;
const toHex = (n: bigint): string => '0x' + n.toString(16);

describe('forking (--fork-url)', () => {
  let upstream: KestrelNode | undefined;
  let forked: KestrelNode | undefined;
  let proxy: Awaited<ReturnType<typeof countingProxy>>;
  const contracts = compileSource(SOURCE, 'Fork.sol');
  const addrs: Record<string, string> = {};
  let forkBlock = 0n;
  /** eth_blockNumber of the fork right after it started. */
  let forkHead0 = '';
  /** The upstream's addLiquidity tx (mined below the fork block) and the upstream's swap after the fork. */
  let liquidityTx = '';
  let upstreamSwapTx = '';
  /** An account only the upstream knows: 1 ETH, nonce 1. */
  const stranger = Wallet.createRandom();
  afterEach(printLogsOnFailure(() => [upstream, forked]));

  before(async () => {
    // Another chain id than the fork's default: the fork must take the upstream's.
    upstream = await startNode({ args: ['--chain-id', 'kestrel_777-1'] });
    const provider = new JsonRpcProvider(upstream.http, undefined, { staticNetwork: true, cacheTimeout: -1 });
    const owner = new Wallet(DEV_ACCOUNTS[0]!.privateKey, provider);
    const deploy = async (name: string, ...args: unknown[]) => {
      const c = contracts[name]!;
      const f = new ContractFactory(c.abi as InterfaceAbi, c.bytecode, owner);
      const d = await f.deploy(...args);
      await d.waitForDeployment();
      return d.getAddress();
    };
    addrs.t0 = await deploy('Token', 1_000_000n * E18);
    addrs.t1 = await deploy('Token', 1_000_000n * E18);
    addrs.pair = await deploy('Pair', addrs.t0, addrs.t1);
    addrs.toucher = await deploy('Toucher');
    const t0 = new Contract(addrs.t0, contracts.Token!.abi as InterfaceAbi, owner);
    const t1 = new Contract(addrs.t1, contracts.Token!.abi as InterfaceAbi, owner);
    const pair = new Contract(addrs.pair, contracts.Pair!.abi as InterfaceAbi, owner);
    await (await t0.getFunction('approve')(addrs.pair, 2n ** 255n)).wait();
    await (await t1.getFunction('approve')(addrs.pair, 2n ** 255n)).wait();
    liquidityTx = (await (await pair.getFunction('addLiquidity')(100_000n * E18, 50_000n * E18)).wait())!.hash;
    await (await owner.sendTransaction({ to: stranger.address, value: 2n * E18 })).wait();
    const s = stranger.connect(provider);
    await (await s.sendTransaction({ to: owner.address, value: E18 / 2n })).wait();
    forkBlock = BigInt(await rpcResult<string>(upstream.http, 'eth_blockNumber'));
    proxy = await countingProxy(upstream.http);
    forked = await startNode({ args: ['--fork-url', proxy.url, '--fork-block-number', forkBlock.toString()] });
    forkHead0 = await rpcResult<string>(forked.http, 'eth_blockNumber');
  });

  after(async () => {
    await forked?.dispose();
    await upstream?.dispose();
    proxy?.server.close();
  });

  const swapOn = async (url: string) => {
    const provider = new JsonRpcProvider(url, undefined, { staticNetwork: true, cacheTimeout: -1 });
    const owner = new Wallet(DEV_ACCOUNTS[0]!.privateKey, provider);
    const pair = new Contract(addrs.pair!, contracts.Pair!.abi as InterfaceAbi, owner);
    const t1 = new Contract(addrs.t1!, contracts.Token!.abi as InterfaceAbi, provider);
    const before = (await t1.getFunction('balanceOf')(owner.address)) as bigint;
    const quoted = (await pair.getFunction('getAmountOut')(1_000n * E18)) as bigint;
    const t = performance.now();
    const receipt = await (await pair.getFunction('swap0For1')(1_000n * E18, owner.address)).wait();
    const ms = performance.now() - t;
    assert.equal(receipt!.status, 1);
    const got = ((await t1.getFunction('balanceOf')(owner.address)) as bigint) - before;
    return { quoted, got, ms, hash: receipt!.hash, reserve1: (await pair.getFunction('reserve1')()) as bigint };
  };

  it('swaps locally as the upstream would, and the upstream sees no write', async () => {
    const owner = DEV_ACCOUNTS[0]!.address;
    const upHead = await rpcResult<string>(upstream!.http, 'eth_blockNumber');
    const upNonce = await rpcResult<string>(upstream!.http, 'eth_getTransactionCount', [owner, 'latest']);
    const r0 = proxy.count();
    const local = await swapOn(forked!.http);
    const requests = proxy.count() - r0;
    process.stdout.write(`# fork swap: ${requests} upstream requests, swap tx ${local.ms.toFixed(0)} ms\n`);
    assert.ok(local.got > 0n);
    assert.equal(local.got, local.quoted);
    // The upstream is only read: its head and the owner's nonce did not move.
    assert.equal(await rpcResult<string>(upstream!.http, 'eth_blockNumber'), upHead);
    assert.equal(await rpcResult<string>(upstream!.http, 'eth_getTransactionCount', [owner, 'latest']), upNonce);
    // The same swap on the upstream afterwards gives the same amount out and leaves the same reserve.
    // Traced on the fork, the swap replays on the upstream values its block fetched.
    const trace = await rpcResult<{ gasUsed: string; error?: string }>(forked!.http, 'debug_traceTransaction', [
      local.hash,
      { tracer: 'callTracer' },
    ]);
    const rcpt = await rpcResult<{ gasUsed: string }>(forked!.http, 'eth_getTransactionReceipt', [local.hash]);
    assert.equal(trace.error, undefined);
    assert.equal(trace.gasUsed, rcpt.gasUsed);
    const remote = await swapOn(upstream!.http);
    upstreamSwapTx = remote.hash;
    assert.equal(remote.got, local.got);
    assert.equal(remote.reserve1, local.reserve1);
  });

  it('continues the upstream chain: block numbers, parent hash, BLOCKHASH and chain id', async () => {
    assert.equal(BigInt(forkHead0), forkBlock);
    assert.equal(await rpcResult(forked!.http, 'eth_chainId'), '0x309');
    const upBlock = await rpcResult<{ hash: string }>(upstream!.http, 'eth_getBlockByNumber', [
      toHex(forkBlock),
      false,
    ]);
    const next = await rpcResult<{ parentHash: string }>(forked!.http, 'eth_getBlockByNumber', [
      toHex(forkBlock + 1n),
      false,
    ]);
    assert.equal(next.parentHash, upBlock.hash);
    const toucher = new Contract(
      addrs.toucher!,
      contracts.Toucher!.abi as InterfaceAbi,
      new JsonRpcProvider(forked!.http, undefined, { staticNetwork: true }),
    );
    for (const n of [forkBlock - 2n, forkBlock - 1n, forkBlock]) {
      const up = await rpcResult<{ hash: string }>(upstream!.http, 'eth_getBlockByNumber', [toHex(n), false]);
      assert.equal(await toucher.getFunction('hashOf')(n), up.hash, `BLOCKHASH(${n})`);
    }
  });

  it("blocks, txs, receipts and logs at or below the fork block are the upstream's", async () => {
    const same = async (method: string, params: unknown[]) => {
      const up = await rpcResult(upstream!.http, method, params);
      assert.notEqual(up, null, method);
      assert.deepEqual(await rpcResult(forked!.http, method, params), up, method);
      return up;
    };
    const r0 = proxy.count();
    const t = performance.now();
    const block = (await same('eth_getBlockByNumber', [toHex(forkBlock), true])) as { hash: string };
    await same('eth_getBlockByNumber', [toHex(forkBlock - 3n), false]);
    await same('eth_getBlockByHash', [block.hash, false]);
    await same('eth_getTransactionByHash', [liquidityTx]);
    // State below the fork block is the upstream's too.
    await same('eth_getBalance', [stranger.address, toHex(forkBlock - 1n)]);
    await same('eth_getCode', [addrs.pair, toHex(forkBlock - 1n)]);
    await same('eth_getTransactionReceipt', [liquidityTx]);
    await same('eth_getBlockTransactionCountByNumber', [toHex(forkBlock)]);
    const ms = performance.now() - t;
    process.stdout.write(`# fork history: 8 reads, ${proxy.count() - r0} upstream requests, ${ms.toFixed(0)} ms\n`);
    // A tx the upstream mined after the fork block is not this chain's.
    assert.equal(await rpcResult(forked!.http, 'eth_getTransactionByHash', [upstreamSwapTx]), null);
    assert.equal(await rpcResult(forked!.http, 'eth_getTransactionReceipt', [upstreamSwapTx]), null);
    // Logs across the fork block: the upstream's up to it, then the swap's on the fork.
    const filter = { fromBlock: '0x0', toBlock: 'latest', address: [addrs.t0, addrs.t1] };
    const upLogs = await rpcResult<Array<{ blockNumber: string }>>(upstream!.http, 'eth_getLogs', [
      { ...filter, toBlock: toHex(forkBlock) },
    ]);
    const logs = await rpcResult<Array<{ blockNumber: string }>>(forked!.http, 'eth_getLogs', [filter]);
    assert.ok(upLogs.length >= 2);
    assert.deepEqual(logs.slice(0, upLogs.length), upLogs);
    const local = logs.slice(upLogs.length);
    assert.equal(local.length, 2, 'the fork swap emitted two Transfer logs');
    for (const l of local) assert.ok(BigInt(l.blockNumber) > forkBlock);
  });

  it('eth_call, eth_estimateGas and eth_createAccessList below the fork block run on the upstream', async () => {
    const pairAbi = new Interface(contracts.Pair!.abi as InterfaceAbi);
    const tokenAbi = new Interface(contracts.Token!.abi as InterfaceAbi);
    const mined = await rpcResult<{ blockNumber: string }>(upstream!.http, 'eth_getTransactionReceipt', [liquidityTx]);
    const liq = BigInt(mined.blockNumber);
    assert.ok(liq < forkBlock);
    const reserve1 = { to: addrs.pair, data: pairAbi.encodeFunctionData('reserve1') };
    const transfer = {
      from: DEV_ACCOUNTS[0]!.address,
      to: addrs.t0,
      data: tokenAbi.encodeFunctionData('transfer', [stranger.address, 1n]),
    };
    const methods = (m: string) => proxy.methods.get(m) ?? 0;
    const calls0 = methods('eth_call');
    const same = async (method: string, params: unknown[]) => {
      const up = await rpcResult(upstream!.http, method, params);
      assert.deepEqual(await rpcResult(forked!.http, method, params), up, method);
      return up;
    };
    // Before the liquidity went in the reserve was 0; after it, what addLiquidity put there; at the head, less.
    assert.equal(BigInt((await same('eth_call', [reserve1, toHex(liq - 1n)])) as string), 0n);
    assert.equal(BigInt((await same('eth_call', [reserve1, toHex(liq)])) as string), 50_000n * E18);
    assert.ok(BigInt(await rpcResult<string>(forked!.http, 'eth_call', [reserve1, 'latest'])) < 50_000n * E18);
    assert.equal(methods('eth_call') - calls0, 2, 'the two calls below N went upstream, the head call did not');
    // State overrides travel with the call (reserve1 is the Pair's slot 1; the tokens are immutables).
    const word = (n: bigint) => '0x' + n.toString(16).padStart(64, '0');
    const overridden = [reserve1, toHex(liq), { [addrs.pair!]: { stateDiff: { [word(1n)]: word(7n) } } }];
    assert.equal(BigInt((await same('eth_call', overridden)) as string), 7n);
    const gas = await same('eth_estimateGas', [transfer, toHex(forkBlock - 1n)]);
    assert.ok(BigInt(gas as string) > 21_000n);
    const list = (await same('eth_createAccessList', [transfer, toHex(forkBlock - 1n)])) as { accessList: unknown[] };
    assert.ok(list.accessList.length > 0);
    // The upstream's failure comes back as an error (the same mapping as every upstream read), not a hang or null.
    const broke = { from: stranger.address, to: addrs.t0, data: transfer.data };
    const res = await rpc(forked!.http, 'eth_estimateGas', [broke, toHex(forkBlock - 1n)]);
    assert.ok(res.error, JSON.stringify(res));
    assert.match(res.error.message, /reverted/);
  });

  it('admits a tx from an account only the upstream knows, with its upstream nonce and balance', async () => {
    const provider = new JsonRpcProvider(forked!.http, undefined, { staticNetwork: true, cacheTimeout: -1 });
    assert.equal(await rpcResult(forked!.http, 'eth_getTransactionCount', [stranger.address, 'pending']), '0x1');
    const s = stranger.connect(provider);
    const receipt = await (await s.sendTransaction({ to: DEV_ACCOUNTS[1]!.address, value: E18 })).wait();
    assert.equal(receipt!.status, 1);
    assert.equal(await rpcResult(forked!.http, 'eth_getTransactionCount', [stranger.address, 'latest']), '0x2');
  });

  it('eth_getBalance/getCode/getStorageAt/getTransactionCount see upstream values of untouched accounts', async () => {
    // Never read on the fork so far: the Toucher's code and nonce, and token 1's allowance of the pair (the swap
    // only calls token 1's transfer), slot keccak(pair . keccak(owner . 1)).
    const coder = AbiCoder.defaultAbiCoder();
    const inner = keccak256(coder.encode(['address', 'uint256'], [DEV_ACCOUNTS[0]!.address, 1]));
    const slot = keccak256(coder.encode(['address', 'bytes32'], [addrs.pair, inner]));
    const reads = [
      ['eth_getCode', [addrs.toucher, 'latest']],
      ['eth_getTransactionCount', [addrs.toucher, 'latest']],
      ['eth_getStorageAt', [addrs.t1, slot, 'latest']],
    ] as const;
    for (const [method, params] of reads) {
      const up = await rpcResult<string>(upstream!.http, method, [...params]);
      assert.ok(BigInt(up === '0x' ? 0 : up) > 0n, `${method} upstream ${up}`);
      assert.equal(await rpcResult<string>(forked!.http, method, [...params]), up, method);
    }
    assert.equal(await rpcResult<string>(forked!.http, 'eth_getBalance', [addrs.toucher, 'latest']), '0x0');
  });

  it('evm_revert makes fetched values committed after the snapshot come from the upstream again', async () => {
    const coder = AbiCoder.defaultAbiCoder();
    const inner = keccak256(coder.encode(['address', 'uint256'], [DEV_ACCOUNTS[0]!.address, 1]));
    const slot = keccak256(coder.encode(['address', 'bytes32'], [addrs.pair, inner]));
    const up = await rpcResult<string>(upstream!.http, 'eth_getStorageAt', [addrs.t1, slot, 'latest']);
    const snap = await rpcResult<string>(forked!.http, 'evm_snapshot');
    // The next block commits the fetched allowance; a local approve then changes it.
    await rpcResult(forked!.http, 'evm_mine');
    const provider = new JsonRpcProvider(forked!.http, undefined, { staticNetwork: true, cacheTimeout: -1 });
    const t1 = new Contract(
      addrs.t1!,
      contracts.Token!.abi as InterfaceAbi,
      new Wallet(DEV_ACCOUNTS[0]!.privateKey, provider),
    );
    await (await t1.getFunction('approve')(addrs.pair, 5n)).wait();
    assert.equal(BigInt(await rpcResult<string>(forked!.http, 'eth_getStorageAt', [addrs.t1, slot, 'latest'])), 5n);
    assert.equal(await rpcResult(forked!.http, 'evm_revert', [snap]), true);
    await rpcResult(forked!.http, 'evm_mine');
    assert.equal(await rpcResult<string>(forked!.http, 'eth_getStorageAt', [addrs.t1, slot, 'latest']), up);
  });

  it('a call touching 1,000 untouched accounts costs a bounded number of batched requests', async () => {
    const accounts = Array.from(
      { length: 1000 },
      (_, i) => '0x' + (0xf0000000n + BigInt(i)).toString(16).padStart(40, '0'),
    );
    const toucher = new Contract(
      addrs.toucher!,
      contracts.Toucher!.abi as InterfaceAbi,
      new JsonRpcProvider(forked!.http, undefined, { staticNetwork: true }),
    );
    const r0 = proxy.count();
    const t = performance.now();
    const sum = (await toucher.getFunction('sumBalances')(accounts)) as bigint;
    const ms = performance.now() - t;
    const requests = proxy.count() - r0;
    process.stdout.write(`# 1,000 untouched accounts: ${requests} upstream requests, ${ms.toFixed(0)} ms\n`);
    assert.equal(sum, 0n);
    // 3,000 reads (balance, nonce, code per account) in batches of 100, plus the Toucher account: not 3,000 requests.
    assert.ok(requests <= 40, `${requests} requests`);
  });

  it("checks fetched state against the fork block's stateRoot (eth_getProof), else reads it plainly", async () => {
    assert.ok((proxy.methods.get('eth_getProof') ?? 0) > 0, 'the fork asked for proofs');
    // Plain state reads are the fallback's (eth_getBalance/eth_getCode are also asked for below the fork block).
    assert.equal(proxy.methods.get('eth_getTransactionCount') ?? 0, 0, 'and made no plain reads');
    assert.equal(proxy.methods.get('eth_getStorageAt') ?? 0, 0, 'and made no plain reads');
    const answersOf = (method: string, calls: Call[], answers: Answer[]) =>
      answers.filter((a) => calls.find((c) => c.id === a.id)?.method === method);
    // A lying upstream claims every proven balance one wei higher; another has no eth_getProof.
    const liar = await countingProxy(upstream!.http, (calls, answers) => {
      for (const a of answersOf('eth_getProof', calls, answers)) {
        const r = a.result as { balance: string };
        r.balance = toHex(BigInt(r.balance) + 1n);
      }
    });
    const noProofs = await countingProxy(upstream!.http, (calls, answers) => {
      for (const a of answersOf('eth_getProof', calls, answers)) {
        delete a.result;
        a.error = { code: -32601, message: 'the method eth_getProof does not exist/is not available' };
      }
    });
    const args = (url: string) => ['--fork-url', url, '--fork-block-number', forkBlock.toString()];
    let lying: KestrelNode | undefined;
    let plain: KestrelNode | undefined;
    try {
      lying = await startNode({ args: args(liar.url) });
      plain = await startNode({ args: args(noProofs.url) });
      const res = await rpc(lying.http, 'eth_getBalance', [stranger.address, 'latest']);
      assert.match(res.error?.message ?? '', /eth_getProof of 0x[0-9a-f]{40} claims another nonce or balance/);
      const up = await rpcResult(upstream!.http, 'eth_getBalance', [stranger.address, toHex(forkBlock)]);
      assert.equal(await rpcResult(plain.http, 'eth_getBalance', [stranger.address, 'latest']), up);
      assert.match(plain.logs(), /reading it unverified/);
    } finally {
      await lying?.dispose();
      await plain?.dispose();
      liar.server.close();
      noProofs.server.close();
    }
  });

  it('a restart reads the fetched state from the disk cache', async () => {
    forked = await forked!.restart();
    const r0 = proxy.count();
    const t1 = new Contract(
      addrs.t1!,
      contracts.Token!.abi as InterfaceAbi,
      new JsonRpcProvider(forked.http, undefined, { staticNetwork: true }),
    );
    const pair = new Contract(
      addrs.pair!,
      contracts.Pair!.abi as InterfaceAbi,
      new JsonRpcProvider(forked.http, undefined, { staticNetwork: true }),
    );
    assert.ok(((await t1.getFunction('balanceOf')(DEV_ACCOUNTS[0]!.address)) as bigint) > 0n);
    assert.ok(((await pair.getFunction('reserve0')()) as bigint) > 100_000n * E18);
    // History below the fork block read before the restart (blocks, receipts, state, calls) is on disk too.
    await rpcResult(forked.http, 'eth_getBlockByNumber', [toHex(forkBlock), true]);
    await rpcResult(forked.http, 'eth_getTransactionReceipt', [liquidityTx]);
    await rpcResult(forked.http, 'eth_getBalance', [stranger.address, toHex(forkBlock - 1n)]);
    await rpcResult(forked.http, 'eth_estimateGas', [
      {
        from: DEV_ACCOUNTS[0]!.address,
        to: addrs.t0,
        data: new Interface(contracts.Token!.abi as InterfaceAbi).encodeFunctionData('transfer', [
          stranger.address,
          1n,
        ]),
      },
      toHex(forkBlock - 1n),
    ]);
    assert.equal(proxy.count() - r0, 0);
  });

  it('anvil_reset re-forks from another upstream block; hardhat_reset goes back to the fork block', async () => {
    const at = forkBlock - 2n;
    const upAt = await rpcResult<{ hash: string }>(upstream!.http, 'eth_getBlockByNumber', [toHex(at), false]);
    const upBalance = await rpcResult<string>(upstream!.http, 'eth_getBalance', [stranger.address, toHex(at)]);
    assert.notEqual(await rpcResult(forked!.http, 'eth_getBalance', [stranger.address, 'latest']), upBalance);
    const forking = { jsonRpcUrl: proxy.url, blockNumber: Number(at) };
    assert.equal(await rpcResult(forked!.http, 'anvil_reset', [{ forking }]), null);
    assert.equal(BigInt(await rpcResult<string>(forked!.http, 'eth_blockNumber')), at);
    assert.equal(await rpcResult(forked!.http, 'eth_getBalance', [stranger.address, 'latest']), upBalance);
    const info = await rpcResult<{ forkConfig: { forkBlockNumber: number } }>(forked!.http, 'anvil_nodeInfo');
    assert.equal(info.forkConfig.forkBlockNumber, Number(at));
    await rpcResult(forked!.http, 'evm_mine');
    const next = await rpcResult<{ parentHash: string }>(forked!.http, 'eth_getBlockByNumber', [toHex(at + 1n), false]);
    assert.equal(next.parentHash, upAt.hash);
    assert.equal(await rpcResult(forked!.http, 'hardhat_reset', []), true);
    assert.equal(BigInt(await rpcResult<string>(forked!.http, 'eth_blockNumber')), at);
    // A restart keeps the new fork point.
    forked = await forked!.restart();
    assert.equal(BigInt(await rpcResult<string>(forked.http, 'eth_blockNumber')), at);
    assert.equal(await rpcResult(forked.http, 'eth_getBalance', [stranger.address, 'latest']), upBalance);
    const bad = await rpc(forked.http, 'anvil_reset', [{ forking: { blockNumber: 'ten' } }]);
    assert.equal(bad.error?.code, -32602);
    // A chain that is not forked cannot re-fork; without params it goes back to genesis.
    const notForked = await rpc(upstream!.http, 'anvil_reset', [{ forking: { jsonRpcUrl: proxy.url } }]);
    assert.match(notForked.error?.message ?? '', /needs a node started with --fork-url/);
    assert.ok(BigInt(await rpcResult<string>(upstream!.http, 'eth_blockNumber')) > 0n);
    assert.equal(await rpcResult(upstream!.http, 'anvil_reset', []), null);
    assert.equal(await rpcResult(upstream!.http, 'eth_blockNumber'), '0x0');
  });

  it('a dead upstream is a JSON-RPC error naming it, not a hang', async () => {
    proxy.server.close();
    proxy.server.closeAllConnections();
    const fresh = '0x' + 'ab'.repeat(20);
    const t = performance.now();
    // A call to an account never fetched needs the upstream.
    const res = await rpc(forked!.http, 'eth_call', [{ to: fresh, data: '0x' }, 'latest']);
    assert.ok(performance.now() - t < 60_000);
    assert.ok(res.error, JSON.stringify(res));
    assert.match(res.error.message, new RegExp(proxy.url.replace(/[.:/]/g, '.')));
  });
});
