// The account key state machine of SPEC §3.1 through JSON-RPC against a real kestreld: new → locked, unlock →
// eth_sign works, expiry of a 2-second unlock, lock, personal_sendTransaction while locked, wrong passphrase,
// restart (keys kept, all locked again); plus eth_sendTransaction defaults, signing interop with ethers, wallets.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import {
  FetchRequest,
  JsonRpcProvider,
  Transaction,
  Wallet,
  getBytes,
  hexlify,
  toUtf8Bytes,
  verifyMessage,
} from 'ethers';
import { WsRpc } from '../helpers/ws.ts';
import { CHAIN_ID, DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { authToken as tokenOf, privateRpc } from '../helpers/privateRpc.ts';
import {
  type KestrelNode,
  type RpcResponse,
  printLogsOnFailure,
  rpc,
  sleep,
  startNode,
  waitForReceipt,
} from '../helpers/node.ts';

const DEV0 = DEV_ACCOUNTS[0]!.address.toLowerCase();
const DEV1 = DEV_ACCOUNTS[1]!.address.toLowerCase();
const IMPORT_KEY = '0x' + '4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';
const IMPORT_ADDR = new Wallet(IMPORT_KEY).address.toLowerCase();

/** One JSON-RPC request over HTTP with the bearer token. */
const call = (n: KestrelNode, method: string, params: unknown[] = []): Promise<RpcResponse<any>> =>
  privateRpc(n, method, params);

async function ok(n: KestrelNode, method: string, params: unknown[] = []): Promise<any> {
  const r = await call(n, method, params);
  if (r.error) throw new Error(`${method} failed: ${JSON.stringify(r.error)}`);
  return r.result;
}

async function fails(n: KestrelNode, method: string, params: unknown[], message: string | RegExp): Promise<void> {
  const r = await call(n, method, params);
  assert.equal(r.result, undefined, `${method} should fail, got ${JSON.stringify(r.result)}`);
  assert.equal(r.error?.code, -32000, JSON.stringify(r.error));
  if (typeof message === 'string') assert.equal(r.error?.message, message);
  else assert.match(r.error!.message, message);
}

describe('personal_ and node-side signing against kestreld --dev', { timeout: 120_000 }, () => {
  let node: KestrelNode;
  let fresh: string; // created by personal_newAccount with passphrase "pw-1"
  before(async () => {
    node = await startNode();
  });
  afterEach(printLogsOnFailure(() => node));
  after(async () => {
    await node?.dispose();
  });

  it('--dev: eth_accounts lists the ten dev accounts first, unlocked (eth_sign works without setup)', async () => {
    const accounts: string[] = (await rpc(node.http, 'eth_accounts')).result as string[];
    assert.deepEqual(
      accounts.slice(0, 10),
      DEV_ACCOUNTS.map((a) => a.address.toLowerCase()),
    );
    const sig = (await rpc(node.http, 'eth_sign', [DEV0, hexlify(toUtf8Bytes('hi'))])).result as string;
    assert.equal(sig, await new Wallet(DEV_ACCOUNTS[0]!.privateKey).signMessage('hi'));
  });

  it('personal_newAccount: listed everywhere, starts locked', async () => {
    fresh = await ok(node, 'personal_newAccount', ['pw-1']);
    assert.match(fresh, /^0x[0-9a-f]{40}$/);
    assert.ok((await ok(node, 'personal_listAccounts')).includes(fresh));
    assert.ok(((await rpc(node.http, 'eth_accounts')).result as string[]).includes(fresh));
    await fails(node, 'eth_sign', [fresh, '0x01'], 'authentication needed: password or unlock');
    const wallets = await ok(node, 'personal_listWallets');
    const w = wallets.find((x: any) => x.accounts[0].address === fresh);
    assert.equal(w.status, 'Locked');
    assert.match(w.url, /^keystore:\/\/\/.*\/keystore\/UTC--.*--[0-9a-f]{40}$/);
    assert.deepEqual(w.accounts, [{ address: fresh, url: w.url }]);
  });

  it("unlock: wrong passphrase and unknown account are refused with geth's messages", async () => {
    await fails(node, 'personal_unlockAccount', [fresh, 'nope', 60], 'could not decrypt key with given password');
    await fails(
      node,
      'personal_unlockAccount',
      ['0x' + '12'.repeat(20), 'pw-1', 60],
      'no key for given address or file',
    );
    await fails(node, 'eth_sign', [fresh, '0x01'], 'authentication needed: password or unlock');
    await fails(node, 'eth_sign', ['0x' + '12'.repeat(20), '0x01'], 'unknown account');
    const r = await call(node, 'personal_unlockAccount', [fresh]);
    assert.equal(r.error?.code, -32602);
    assert.equal(r.error?.message, 'missing value for required argument 1');
  });

  it('unlock for 2 s: eth_sign works (EIP-191, verifies with ethers), then the key expires', async () => {
    assert.equal(await ok(node, 'personal_unlockAccount', [fresh, 'pw-1', 2]), true);
    const unlockedAt = Date.now();
    const msg = toUtf8Bytes('state machine');
    const sig: string = await ok(node, 'eth_sign', [fresh, hexlify(msg)]);
    assert.equal(verifyMessage(msg, sig).toLowerCase(), fresh);
    assert.ok(sig.endsWith('1b') || sig.endsWith('1c'), `v must be 27/28: ${sig}`);
    assert.equal(
      (await ok(node, 'personal_listWallets')).find((x: any) => x.accounts[0].address === fresh).status,
      'Unlocked',
    );
    // Poll until locked; it must not happen before the 2 s are up.
    let lockedAfter = -1;
    for (let i = 0; i < 200; i++) {
      const r = await call(node, 'eth_sign', [fresh, '0x01']);
      if (r.error) {
        assert.equal(r.error.message, 'authentication needed: password or unlock');
        lockedAfter = Date.now() - unlockedAt;
        break;
      }
      await sleep(100);
    }
    assert.ok(lockedAfter >= 1900, `locked after ${lockedAfter} ms`);
    assert.ok(lockedAfter < 15_000, 'never locked again');
  });

  it('lockAccount forgets the key at once; unlock with duration 0 lasts until the process exits', async () => {
    assert.equal(await ok(node, 'personal_unlockAccount', [fresh, 'pw-1']), true); // default 300 s
    await ok(node, 'eth_sign', [fresh, '0x01']);
    assert.equal(await ok(node, 'personal_lockAccount', [fresh]), true);
    await fails(node, 'eth_sign', [fresh, '0x01'], 'authentication needed: password or unlock');
    assert.equal(await ok(node, 'personal_unlockAccount', [fresh, 'pw-1', 0]), true);
    await ok(node, 'eth_sign', [fresh, '0x01']);
    assert.equal(await ok(node, 'personal_lockAccount', [fresh]), true);
    const tooLong = await call(node, 'personal_unlockAccount', [fresh, 'pw-1', 9223372037]);
    assert.equal(tooLong.error?.message, 'unlock duration too large');
  });

  it('personal_sendTransaction while locked: signs that one tx only; the account stays locked', async () => {
    // Fund it from an unlocked dev account with eth_sendTransaction (defaults: gas 90000, pending nonce, 1559 fees).
    const fund: string = await ok(node, 'eth_sendTransaction', [{ from: DEV1, to: fresh, value: '0xde0b6b3a7640000' }]);
    assert.equal((await waitForReceipt(node.http, fund)).status, '0x1');
    await fails(
      node,
      'personal_sendTransaction',
      [{ from: fresh, to: DEV1, value: '0x1' }, 'wrong'],
      'could not decrypt key with given password',
    );
    const h: string = await ok(node, 'personal_sendTransaction', [{ from: fresh, to: DEV1, value: '0x1' }, 'pw-1']);
    const receipt = await waitForReceipt(node.http, h);
    assert.equal(receipt.status, '0x1');
    assert.equal(receipt.from, fresh);
    await fails(node, 'eth_sign', [fresh, '0x01'], 'authentication needed: password or unlock');
    await fails(
      node,
      'eth_sendTransaction',
      [{ from: fresh, to: DEV1, value: '0x1' }],
      'authentication needed: password or unlock',
    );
    await fails(
      node,
      'personal_sendTransaction',
      [{ from: '0x' + '12'.repeat(20), to: DEV1 }, 'pw-1'],
      'unknown account',
    );
  });

  it('eth_sendTransaction fills gas 90000 (gasLimit accepted as alias), the pending nonce, fee-market fees, chain id', async () => {
    const nonce = BigInt((await rpc(node.http, 'eth_getTransactionCount', [DEV1, 'pending'])).result as string);
    const a: string = await ok(node, 'eth_sendTransaction', [{ from: DEV1, to: DEV0, value: '0x5' }]);
    const b: string = await ok(node, 'eth_sendTransaction', [{ from: DEV1, to: DEV0, gasLimit: '0x5208' }]);
    const txA = (await rpc(node.http, 'eth_getTransactionByHash', [a])).result as any;
    const txB = (await rpc(node.http, 'eth_getTransactionByHash', [b])).result as any;
    assert.equal(txA.gas, '0x15f90');
    assert.equal(txB.gas, '0x5208');
    assert.equal(BigInt(txA.nonce), nonce);
    assert.equal(BigInt(txB.nonce), nonce + 1n);
    assert.equal(txA.type, '0x2');
    assert.equal(txA.chainId, '0x2328');
    const base = BigInt(
      ((await rpc(node.http, 'eth_getBlockByNumber', ['latest', false])).result as any).baseFeePerGas,
    );
    assert.ok(BigInt(txA.maxFeePerGas) >= base, `maxFeePerGas ${txA.maxFeePerGas} below the base fee ${base}`);
    assert.equal((await waitForReceipt(node.http, b)).status, '0x1');
    // A legacy request (gasPrice) stays legacy, EIP-155 protected.
    const c: string = await ok(node, 'eth_sendTransaction', [{ from: DEV1, to: DEV0, gasPrice: '0x3b9aca00' }]);
    const txC = (await rpc(node.http, 'eth_getTransactionByHash', [c])).result as any;
    assert.equal(txC.type, '0x0');
    assert.ok(BigInt(txC.v) === 9000n * 2n + 35n || BigInt(txC.v) === 9000n * 2n + 36n);
    await fails(
      node,
      'eth_sendTransaction',
      [{ from: DEV1, to: DEV0, chainId: '0x1' }],
      "chainId does not match node's (have=1, want=9000)",
    );
    await fails(node, 'eth_sendTransaction', [{ from: DEV1 }], 'contract creation without any data provided');
  });

  it('concurrent eth_sendTransaction from one account take consecutive nonces', async () => {
    const hashes = await Promise.all(
      Array.from({ length: 20 }, () =>
        ok(node, 'eth_sendTransaction', [{ from: DEV0, to: DEV1, value: '0x1', gas: '0x5208' }]),
      ),
    );
    assert.equal(new Set(hashes).size, 20);
    const receipts = await Promise.all(hashes.map((h) => waitForReceipt(node.http, h)));
    assert.ok(receipts.every((r) => r.status === '0x1'));
    const nonces = await Promise.all(
      hashes.map(async (h) => BigInt(((await rpc(node.http, 'eth_getTransactionByHash', [h])).result as any).nonce)),
    );
    assert.equal(new Set(nonces.map(String)).size, 20);
  });

  it("eth_signTransaction returns {raw, tx} that eth_sendRawTransaction accepts; missing fields are geth's errors", async () => {
    const nonce = (await rpc(node.http, 'eth_getTransactionCount', [DEV1, 'pending'])).result as string;
    const req = {
      from: DEV1,
      to: DEV0,
      value: '0x7',
      gas: '0x5208',
      nonce,
      maxFeePerGas: '0x77359400',
      maxPriorityFeePerGas: '0x1',
    };
    const res = await ok(node, 'eth_signTransaction', [req]);
    const tx = Transaction.from(res.raw);
    assert.equal(tx.from!.toLowerCase(), DEV1);
    assert.equal(tx.hash, res.tx.hash);
    assert.equal(res.tx.nonce, nonce);
    assert.equal(res.tx.type, '0x2');
    const sent = (await rpc(node.http, 'eth_sendRawTransaction', [res.raw])).result as string;
    assert.equal(sent, res.tx.hash);
    await fails(node, 'eth_signTransaction', [{ ...req, gas: undefined }], 'gas not specified');
    await fails(node, 'eth_signTransaction', [{ ...req, nonce: undefined }], 'nonce not specified');
    await fails(
      node,
      'eth_signTransaction',
      [{ ...req, maxFeePerGas: undefined }],
      'missing gasPrice or maxFeePerGas/maxPriorityFeePerGas',
    );
    await fails(
      node,
      'personal_signTransaction',
      [{ ...req, from: fresh }, 'wrong'],
      'could not decrypt key with given password',
    );
    const p = await ok(node, 'personal_signTransaction', [{ ...req, from: fresh, nonce: '0x0' }, 'pw-1']);
    assert.equal(Transaction.from(p.raw).from!.toLowerCase(), fresh);
  });

  it('importRawKey with or without 0x; a duplicate is "account already exists"', async () => {
    assert.equal(await ok(node, 'personal_importRawKey', [IMPORT_KEY.slice(2), 'imp']), IMPORT_ADDR);
    await fails(node, 'personal_importRawKey', [IMPORT_KEY, 'other'], 'account already exists');
    await fails(node, 'personal_importRawKey', [DEV_ACCOUNTS[0]!.privateKey, 'x'], 'account already exists');
    await fails(node, 'personal_importRawKey', ['0x1234', 'x'], 'invalid length, need 256 bits');
    const other = Wallet.createRandom();
    assert.equal(await ok(node, 'personal_importRawKey', [other.privateKey, 'x']), other.address.toLowerCase());
  });

  it('personal_sign / ecRecover: EIP-191, byte-identical to ethers signMessage; ethers JsonRpcSigner round-trips', async () => {
    const msg = toUtf8Bytes('Hello Kestrel ✓');
    const sig: string = await ok(node, 'personal_sign', [hexlify(msg), IMPORT_ADDR, 'imp']);
    assert.equal(sig, await new Wallet(IMPORT_KEY).signMessage(msg));
    assert.equal(await ok(node, 'personal_ecRecover', [hexlify(msg), sig]), IMPORT_ADDR);
    await fails(node, 'personal_sign', [hexlify(msg), IMPORT_ADDR, 'bad'], 'could not decrypt key with given password');
    await fails(node, 'personal_sign', [hexlify(msg), IMPORT_ADDR], 'authentication needed: password or unlock');
    await fails(node, 'personal_ecRecover', [hexlify(msg), sig.slice(0, -2)], 'signature must be 65 bytes long');
    await fails(
      node,
      'personal_ecRecover',
      [hexlify(msg), sig.slice(0, -2) + '01'],
      'invalid Ethereum signature (V is not 27 or 28)',
    );
    // ethers' JsonRpcSigner.signMessage sends personal_sign [message, address] (no passphrase): an unlocked key signs.
    const req = new FetchRequest(node.http);
    req.setHeader('Authorization', `Bearer ${tokenOf(node)}`);
    const provider = new JsonRpcProvider(req, CHAIN_ID, { staticNetwork: true });
    try {
      const signer = await provider.getSigner(DEV_ACCOUNTS[2]!.address);
      const s = await signer.signMessage('from ethers');
      assert.equal(verifyMessage('from ethers', s), DEV_ACCOUNTS[2]!.address);
      assert.equal(s, await new Wallet(DEV_ACCOUNTS[2]!.privateKey).signMessage('from ethers'));
      // And sendTransaction through the node's key (eth_sendTransaction).
      const tx = await signer.sendTransaction({ to: DEV0, value: 1n });
      assert.equal((await tx.wait())!.status, 1);
    } finally {
      provider.destroy();
    }
    assert.deepEqual(getBytes(sig).length, 65);
  });

  it("wallets: initializeWallet and unpair are not supported by key-store wallets (geth's errors)", async () => {
    const wallets = await ok(node, 'personal_listWallets');
    assert.ok(wallets.length >= 13);
    const url: string = wallets[0].url;
    await fails(node, 'personal_initializeWallet', [url], 'specified wallet does not support initialization');
    await fails(node, 'personal_unpair', [url, '1234'], 'specified wallet does not support pairing');
    await fails(node, 'personal_initializeWallet', ['keystore:///nowhere'], 'unknown wallet');
    await fails(node, 'personal_initializeWallet', ['nowhere'], 'protocol scheme missing');
    assert.equal(await ok(node, 'personal_openWallet', [url]), null);
  });

  it('the same state machine over WebSocket (token on the upgrade request)', async () => {
    const ws = await WsRpc.connect(node.ws, undefined, { authorization: `Bearer ${tokenOf(node)}` });
    try {
      const addr = (await ws.request('personal_newAccount', ['ws-pw'])).result as string;
      assert.equal(
        (await ws.request('eth_sign', [addr, '0x02'])).error?.message,
        'authentication needed: password or unlock',
      );
      assert.equal((await ws.request('personal_unlockAccount', [addr, 'ws-pw', 60])).result, true);
      const sig = (await ws.request('eth_sign', [addr, '0x02'])).result as string;
      assert.equal((await ws.request('personal_ecRecover', ['0x02', sig])).result, addr);
      assert.equal((await ws.request('personal_lockAccount', [addr])).result, true);
      assert.equal(
        (await ws.request('eth_sign', [addr, '0x02'])).error?.message,
        'authentication needed: password or unlock',
      );
    } finally {
      await ws.close();
    }
  });

  it('after a restart the keys are still there and all locked again (dev accounts unlocked again)', async () => {
    await ok(node, 'personal_unlockAccount', [fresh, 'pw-1', 0]);
    await ok(node, 'personal_unlockAccount', [IMPORT_ADDR, 'imp', 0]);
    const before = await ok(node, 'personal_listAccounts');
    node = await node.restart();
    const afterRestart = await ok(node, 'personal_listAccounts');
    assert.deepEqual(afterRestart, before);
    for (const a of [fresh, IMPORT_ADDR])
      await fails(node, 'eth_sign', [a, '0x01'], 'authentication needed: password or unlock');
    const wallets = await ok(node, 'personal_listWallets');
    for (const w of wallets) {
      const a = w.accounts[0].address;
      const isDev = DEV_ACCOUNTS.some((d) => d.address.toLowerCase() === a);
      assert.equal(w.status, isDev ? 'Unlocked' : 'Locked', a);
    }
    assert.equal(await ok(node, 'personal_unlockAccount', [fresh, 'pw-1', 60]), true);
    await ok(node, 'eth_sign', [fresh, '0x01']);
  });
});
