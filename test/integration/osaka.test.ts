// Osaka against a real kestreld (a new home runs it) and a home made with `init --fork Prague`, beside Anvil 1.7.1
// (`--hardfork osaka --enable-tx-gas-limit`: Anvil checks EIP-7825 only when asked): a contract compiled by npm solc
// 0.8.37 with default settings (evmVersion osaka) using CLZ deploys and answers; P256VERIFY with valid and invalid
// inputs; MODEXP inputs over EIP-7823's bound fail; a 30,000,000-gas transaction is refused on Osaka and mined on
// Prague; eth_estimateGas stays under the cap (geth's estimator; Anvil does not) while eth_call is not capped (geth
// and Anvil alike).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { p256 } from '@noble/curves/nist.js';
import { Contract, ContractFactory, JsonRpcProvider, Wallet, type InterfaceAbi } from 'ethers';
import { startAnvil } from '../../bench/nodes/anvil.ts';
import type { RunningNode } from '../../bench/nodes/types.ts';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { type KestrelNode, printLogsOnFailure, REPO_ROOT, rpc, rpcResult, startNode } from '../helpers/node.ts';
import { compileWithDefaults } from '../helpers/solc.ts';

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.31;
contract Osaka {
    function clz(uint256 x) external pure returns (uint256 r) {
        assembly { r := clz(x) }
    }
    function p256(bytes32 h, bytes32 r, bytes32 s, bytes32 x, bytes32 y) external view returns (bool ok, uint256 len) {
        (bool success, bytes memory out) = address(0x100).staticcall(abi.encode(h, r, s, x, y));
        ok = success && out.length == 32 && abi.decode(out, (uint256)) == 1;
        len = out.length;
    }
    function modexp(bytes calldata input) external view returns (bool success, bytes memory out) {
        (success, out) = address(0x05).staticcall(input);
    }
}
`;

const word = (n: bigint) => '0x' + n.toString(16).padStart(64, '0');
/** The modexp input: lengths, then base, exponent and modulus of those lengths (bytes of 0x02, 0x03 and 0x07). */
function modexpInput(b: number, e: number, m: number): string {
  const hex = (n: number, fill: string) => fill.repeat(n);
  return (
    '0x' + [b, e, m].map((n) => n.toString(16).padStart(64, '0')).join('') + hex(b, '02') + hex(e, '03') + hex(m, '07')
  );
}

/** A P-256 signature of `hash` by a fixed key (no low-s normalisation), as the precompile's five words. */
function p256Words(hash: bigint): [string, string, string, string, string] {
  const sk = 0xc0ffee_1234n;
  const sig = p256.Signature.fromBytes(
    p256.sign(Buffer.from(word(hash).slice(2), 'hex'), Buffer.from(word(sk).slice(2), 'hex'), {
      prehash: false,
      lowS: false,
    }),
    'compact',
  );
  const q = p256.Point.BASE.multiply(sk).toAffine();
  return [word(hash), word(sig.r), word(sig.s), word(q.x), word(q.y)];
}

interface Chain {
  name: string;
  url: string;
  contract: Contract;
  wallet: Wallet;
}

async function deploy(name: string, url: string, abi: InterfaceAbi, bytecode: string, key: string): Promise<Chain> {
  const provider = new JsonRpcProvider(url, undefined, { staticNetwork: true, cacheTimeout: -1 });
  const wallet = new Wallet(key, provider);
  const contract = (await new ContractFactory(abi, bytecode, wallet).deploy()) as Contract;
  await contract.waitForDeployment();
  return { name, url, contract, wallet };
}

/** A signed 1559 transfer to self with `gasLimit`, from the chain's wallet at its next nonce. */
async function rawTx(c: Chain, gasLimit: bigint): Promise<string> {
  const provider = c.wallet.provider!;
  const [nonce, net, fee] = await Promise.all([
    provider.getTransactionCount(c.wallet.address, 'pending'),
    provider.getNetwork(),
    provider.getFeeData(),
  ]);
  return c.wallet.signTransaction({
    type: 2,
    to: c.wallet.address,
    gasLimit,
    nonce,
    chainId: net.chainId,
    maxFeePerGas: (fee.maxFeePerGas ?? 10n ** 10n) * 2n,
    maxPriorityFeePerGas: 1n,
  });
}

const compiled = compileWithDefaults(SOURCE, 'Osaka.sol').Osaka!;
let osaka: KestrelNode;
let prague: KestrelNode;
let pragueHome: string;
let anvil: RunningNode;
const chains: Chain[] = [];

describe('Osaka: kestreld (Osaka and Prague homes) beside Anvil', { timeout: 300_000 }, () => {
  before(async () => {
    pragueHome = mkdtempSync(join(tmpdir(), 'kestrel-prague-'));
    const init = spawnSync(
      process.execPath,
      ['bin/kestreld.js', 'init', '--dev', '--fork', 'Prague', '--home', join(pragueHome, 'home')],
      { cwd: REPO_ROOT, encoding: 'utf8' },
    );
    assert.equal(init.status, 0, init.stderr);
    assert.match(init.stdout, /fork Prague/);
    [osaka, prague, anvil] = await Promise.all([
      startNode(),
      startNode({ home: join(pragueHome, 'home') }),
      startAnvil(['--hardfork', 'osaka', '--enable-tx-gas-limit']),
    ]);
    // Dev account 5 on each: no node uses it as its coinbase.
    const key = DEV_ACCOUNTS[5]!.privateKey;
    chains.push(await deploy('kestrel', osaka.http, compiled.abi, compiled.bytecode, key));
    chains.push(await deploy('anvil', anvil.url, compiled.abi, compiled.bytecode, key));
  });
  afterEach(printLogsOnFailure(() => [osaka, prague]));
  after(async () => {
    await Promise.all([osaka?.dispose(), prague?.dispose(), anvil?.stop()]);
    rmSync(pragueHome, { recursive: true, force: true });
  });

  it('solc 0.8.37 with default settings targets osaka', () => {
    assert.equal(compiled.evmVersion, 'osaka');
  });

  it('CLZ answers 256, 255, 0 and the rest on Kestrel as on Anvil', async () => {
    const xs = [0n, 1n, 2n, 255n, 1n << 128n, (1n << 255n) - 1n, 1n << 255n, (1n << 256n) - 1n];
    const want = [256n, 255n, 254n, 248n, 127n, 1n, 0n, 0n];
    for (const c of chains) {
      const got: bigint[] = [];
      for (const x of xs) got.push((await c.contract.getFunction('clz')(x)) as bigint);
      assert.deepEqual(got, want, c.name);
    }
    // Deployed on the Prague home (the constructor runs no CLZ), the call meets an invalid opcode.
    const onPrague = await deploy('prague', prague.http, compiled.abi, compiled.bytecode, DEV_ACCOUNTS[6]!.privateKey);
    const data = onPrague.contract.interface.encodeFunctionData('clz', [1n]);
    const r = await rpc(prague.http, 'eth_call', [{ to: await onPrague.contract.getAddress(), data }, 'latest']);
    assert.equal(r.error?.message, 'invalid opcode');
  });

  it('eth_config: Osaka precompiles with P256VERIFY, blob schedule 6 / 9 / 5007716; Prague home: 17, no P256VERIFY', async () => {
    const o = (await rpcResult(osaka.http, 'eth_config')).current;
    const a = (await rpcResult(anvil.url, 'eth_config')).current;
    assert.equal(o.precompiles.P256VERIFY, '0x0000000000000000000000000000000000000100');
    assert.deepEqual(Object.keys(o.precompiles).sort(), Object.keys(a.precompiles).sort());
    assert.deepEqual(o.blobSchedule, { target: 6, max: 9, baseFeeUpdateFraction: 5007716 });
    assert.deepEqual(o.blobSchedule, a.blobSchedule);
    const p = (await rpcResult(prague.http, 'eth_config')).current;
    assert.equal(Object.keys(p.precompiles).length, 17);
    assert.equal(p.precompiles.P256VERIFY, undefined);
  });

  it('eth_feeHistory and eth_blobBaseFee: a 1-wei blob base fee, as Anvil reports', async () => {
    for (const url of [osaka.http, anvil.url]) {
      assert.equal(await rpcResult(url, 'eth_blobBaseFee'), '0x1');
      const h = await rpcResult(url, 'eth_feeHistory', ['0x1', 'latest', []]);
      assert.deepEqual(h.baseFeePerBlobGas, ['0x1', '0x1']);
      assert.deepEqual(h.blobGasUsedRatio, [0]);
    }
  });

  it('P256VERIFY: a valid signature, a high s, an altered hash, r = 0 and a short input, as on Anvil', async () => {
    const [h, r, s, x, y] = p256Words(0xabcdefn);
    const n = p256.Point.CURVE().n;
    const highS = word(n - BigInt(s));
    const cases: Array<[string, string[], [boolean, bigint]]> = [
      ['valid', [h, r, s, x, y], [true, 32n]],
      ['high s', [h, r, highS, x, y], [true, 32n]],
      ['altered hash', [word(BigInt(h) ^ 1n), r, s, x, y], [false, 0n]],
      ['r = 0', [h, word(0n), s, x, y], [false, 0n]],
      ['off-curve key', [h, r, s, x, word(BigInt(y) ^ 1n)], [false, 0n]],
    ];
    for (const c of chains) {
      for (const [label, args, want] of cases) {
        const got = (await c.contract.getFunction('p256')(...args)) as [boolean, bigint];
        assert.deepEqual([got[0], got[1]], want, `${c.name}: ${label}`);
      }
      // A 159-byte input straight to 0x100: an empty answer, no failure.
      const short =
        '0x' +
        [h, r, s, x, y]
          .map((w) => w.slice(2))
          .join('')
          .slice(0, 318);
      assert.equal(
        await rpcResult(c.url, 'eth_call', [{ to: '0x' + '00'.repeat(18) + '0100', data: short }, 'latest']),
        '0x',
      );
    }
  });

  it('MODEXP: 1024-byte operands work, 1025 fails the call (EIP-7823), as on Anvil', async () => {
    for (const c of chains) {
      const [ok, out] = (await c.contract.getFunction('modexp')(modexpInput(1024, 1, 1024))) as [boolean, string];
      assert.equal(ok, true, c.name);
      assert.equal((out.length - 2) / 2, 1024);
      for (const [b, e, m] of [
        [1025, 1, 1],
        [1, 1025, 1],
        [1, 1, 1025],
      ] as const) {
        const [failed] = (await c.contract.getFunction('modexp')(modexpInput(b, e, m))) as [boolean, string];
        assert.equal(failed, false, `${c.name}: ${b}/${e}/${m}`);
      }
    }
    // On the Prague home the same over-long input still runs (no bound before Osaka): (0x0202…02)^3 mod 7.
    const input = modexpInput(1025, 1, 1);
    const direct = await rpc(prague.http, 'eth_call', [{ to: '0x' + '00'.repeat(19) + '05', data: input }, 'latest']);
    const base = BigInt('0x' + '02'.repeat(1025));
    assert.equal(direct.result, '0x' + ((base * base * base) % 7n).toString(16).padStart(2, '0'));
    const onOsaka = await rpc(osaka.http, 'eth_call', [{ to: '0x' + '00'.repeat(19) + '05', data: input }, 'latest']);
    assert.ok(onOsaka.error !== undefined, 'a top-level call that fails the bound is an error');
  });

  it('a 30,000,000-gas transaction: refused on Osaka (geth words; Anvil refuses too), mined on Prague', async () => {
    const k = chains[0]!;
    const refused = await rpc(osaka.http, 'eth_sendRawTransaction', [await rawTx(k, 30_000_000n)]);
    assert.equal(refused.error?.message, 'transaction gas limit too high (cap: 16777216, tx: 30000000)');
    const a = chains[1]!;
    const anvilRefused = await rpc(anvil.url, 'eth_sendRawTransaction', [await rawTx(a, 30_000_000n)]);
    assert.ok(anvilRefused.error !== undefined, 'Anvil refuses it too');
    // 2^24 itself is fine.
    const atCap = await rpc(osaka.http, 'eth_sendRawTransaction', [await rawTx(k, 1n << 24n)]);
    assert.equal(atCap.error, undefined, JSON.stringify(atCap.error));
    // The same transaction on a home whose genesis names Prague.
    const provider = new JsonRpcProvider(prague.http, undefined, { staticNetwork: true });
    const onPrague: Chain = { ...k, url: prague.http, wallet: new Wallet(DEV_ACCOUNTS[5]!.privateKey, provider) };
    const hash = await rpcResult<string>(prague.http, 'eth_sendRawTransaction', [await rawTx(onPrague, 30_000_000n)]);
    const receipt = await provider.waitForTransaction(hash, 1, 30_000);
    assert.equal(receipt?.status, 1);
    assert.equal(receipt?.gasUsed, 21_000n);
  });

  it('eth_estimateGas searches below the cap (as geth); eth_call is not capped (as geth and Anvil)', async () => {
    const from = DEV_ACCOUNTS[5]!.address;
    for (const url of [osaka.http, anvil.url]) {
      assert.equal(await rpcResult(url, 'eth_estimateGas', [{ from, to: from, gas: '0x1c9c380' }]), '0x5208');
      // GAS, returned: more than the cap is available to a call asking for 30,000,000.
      const out = await rpcResult<string>(url, 'eth_call', [
        { from, gas: '0x1c9c380', data: '0x5a60005260206000f3' },
        'latest',
      ]);
      assert.ok(BigInt(out) > 1n << 24n, `${url}: ${BigInt(out)}`);
    }
    // A creation that expands memory to 3,000,000 bytes (~17.5M gas) cannot be estimated on Osaka, where no
    // transaction may carry that much (geth's words, the cap as the allowance); eth_call runs it; Prague estimates it.
    const expand = '0x5f622dc6c05200'; // PUSH0, PUSH3 3000000, MSTORE, STOP
    const e = await rpc(osaka.http, 'eth_estimateGas', [{ from, data: expand, gas: '0x1c9c380' }]);
    assert.equal(e.error?.message, 'gas required exceeds allowance (16777216)');
    // Anvil 1.7.1 estimates past the cap it enforces on sending (geth's estimator, and Kestrel, stop at the cap).
    const ea = BigInt(await rpcResult(anvil.url, 'eth_estimateGas', [{ from, data: expand, gas: '0x1c9c380' }]));
    assert.ok(ea > 1n << 24n, `Anvil: ${ea}`);
    assert.equal(await rpcResult(osaka.http, 'eth_call', [{ from, data: expand, gas: '0x1c9c380' }, 'latest']), '0x');
    const onPrague = BigInt(
      await rpcResult(prague.http, 'eth_estimateGas', [{ from, data: expand, gas: '0x1c9c380' }]),
    );
    assert.ok(onPrague > 1n << 24n && onPrague < 30_000_000n, `${onPrague}`);
  });
});
