// cosmjs 0.39 on a brand-new dev node, as a user calls it: StargateClient.connect (version auto-detection),
// getAllBalances, a transfer broadcast through the Cosmos channel, balances at the heights before and after it
// agreeing across cosmjs, gRPC, the CLI and eth_getBalance; /websocket events; validators, blockchain, tx.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { QueryClient, StargateClient } from '@cosmjs/stargate';
import { Comet38Client, connectComet, isComet38Client } from '@cosmjs/tendermint-rpc';
import { bech32 } from 'bech32';
import { QueryAllBalancesRequest, QueryAllBalancesResponse } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { bankClient, cli } from '../helpers/cosmos.ts';
import { type KestrelNode, printLogsOnFailure, rpcResult, startNode } from '../helpers/node.ts';
import { signTx } from '../helpers/tx.ts';

const acc = (hex: string) => bech32.encode('kestrel', bech32.toWords(Buffer.from(hex.slice(2), 'hex')));
const alice = DEV_ACCOUNTS[7]!;

/**
 * Closes a cosmjs WebSocket client for good. cosmjs 0.39's ReconnectingSocket answers every Disconnected status, its
 * own disconnect() included, with a reconnect timer; the status arrives with the socket's close event, after
 * disconnect() returns, and each failed dial sets the next timer, so a closed client dials for ever and keeps the test
 * process alive after its last test (CI waited on it until its timeout). A listener added after the socket's own
 * cancels each timer as soon as it is set.
 */
function closeWs(ws: Comet38Client): void {
  type Reconnecting = {
    reconnectTimeout: ReturnType<typeof setTimeout> | null;
    connectionStatus: { updates: { subscribe(listener: { next: () => void }): unknown } };
  };
  const socket = (ws as unknown as { client: { socket: Reconnecting } }).client.socket;
  socket.connectionStatus.updates.subscribe({
    next: () => {
      if (socket.reconnectTimeout) clearTimeout(socket.reconnectTimeout);
      socket.reconnectTimeout = null;
    },
  });
  ws.disconnect();
}
const bob = DEV_ACCOUNTS[8]!;

describe('cosmjs 0.39 on a fresh dev node', { timeout: 120_000 }, () => {
  let node: KestrelNode;
  let client: StargateClient;
  afterEach(printLogsOnFailure(() => node));
  before(async () => {
    node = await startNode();
  });
  after(async () => {
    client?.disconnect();
    await node?.dispose();
  });

  it('auto-detection picks Comet38Client; block 1 exists at once, sealed at genesis time', async () => {
    const comet = await connectComet(node.comet);
    assert.ok(isComet38Client(comet), 'Comet38Client');
    const status = await comet.status();
    assert.match(status.nodeInfo.version, /^0\.38\./);
    assert.ok(status.syncInfo.latestBlockHeight >= 1);
    const b1 = await comet.block(1);
    const genesis = JSON.parse(
      await (await import('node:fs/promises')).readFile(`${node.home}/config/genesis.json`, 'utf8'),
    );
    assert.equal(b1.block.header.time.toISOString(), new Date(genesis.genesis_time).toISOString());
    comet.disconnect();
  });

  it('getAllBalances, a transfer, and balances before/after agree with gRPC, the CLI and eth_getBalance', async () => {
    client = await StargateClient.connect(node.comet);
    const addr = acc(alice.address);
    const before = await client.getAllBalances(addr);
    assert.deepEqual(
      before.map((c) => c.denom),
      ['akestrel', 'stake'],
    );
    const h0 = await client.getHeight();
    assert.ok(h0 >= 1);

    const value = 123_456_789n;
    const { raw, hash } = await signTx(node.http, alice.privateKey, { to: bob.address, value });
    const res = await client.broadcastTx(Buffer.from(raw.slice(2), 'hex'), 20_000, 200);
    assert.equal(res.code, 0);
    const h1 = res.height;
    assert.ok(h1 > h0);
    const receipt = await rpcResult(node.http, 'eth_getTransactionReceipt', [hash]);
    assert.equal(Number(receipt.blockNumber), h1);
    const found = await client.getTx(res.transactionHash);
    assert.equal(found?.height, h1);

    const qComet = await Comet38Client.connect(node.comet);
    const q = new QueryClient(qComet);
    const grpc = bankClient(node.grpc);
    try {
      for (const [h, who] of [
        [h0, alice],
        [h1, alice],
        [h0, bob],
        [h1, bob],
      ] as const) {
        const request = QueryAllBalancesRequest.encode(
          QueryAllBalancesRequest.fromPartial({ address: acc(who.address) }),
        ).finish();
        const viaCosmjs = QueryAllBalancesResponse.decode(
          (await q.queryAbci('/cosmos.bank.v1beta1.Query/AllBalances', request, h)).value,
        );
        const viaGrpc = (await grpc.call('AllBalances', { address: acc(who.address) }, h)).res;
        const cliOut = await cli([
          'query',
          'bank',
          'balances',
          acc(who.address),
          '--node',
          node.comet.replace('http://', 'tcp://'),
          '--height',
          String(h),
          '-o',
          'json',
        ]);
        assert.equal(cliOut.code, 0, cliOut.stderr);
        const viaCli = JSON.parse(cliOut.stdout);
        const viaEth = BigInt(await rpcResult(node.http, 'eth_getBalance', [who.address, `0x${h.toString(16)}`]));
        const akestrel = (coins: Array<{ denom: string; amount: string }>) =>
          BigInt(coins.find((c) => c.denom === 'akestrel')!.amount);
        assert.equal(akestrel(viaCosmjs.balances), viaEth, `cosmjs vs eth at ${h}`);
        assert.equal(akestrel(viaGrpc.balances), viaEth, `gRPC vs eth at ${h}`);
        assert.equal(akestrel(viaCli.balances), viaEth, `CLI vs eth at ${h}`);
      }
      const a0 = BigInt(await rpcResult(node.http, 'eth_getBalance', [alice.address, `0x${h0.toString(16)}`]));
      const a1 = BigInt(await rpcResult(node.http, 'eth_getBalance', [alice.address, `0x${h1.toString(16)}`]));
      const fee = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice);
      assert.equal(a0 - a1, value + fee);
      const after = await client.getAllBalances(addr);
      assert.equal(BigInt(after.find((c) => c.denom === 'akestrel')!.amount), a1);
    } finally {
      grpc.close();
      qComet.disconnect();
    }
  });

  it('validators, blockchain and tx decode in cosmjs', async () => {
    const comet = await Comet38Client.connect(node.comet);
    try {
      const head = (await comet.status()).syncInfo.latestBlockHeight;
      const vals = await comet.validators({ height: head });
      assert.equal(vals.total, 1);
      assert.equal(vals.validators[0]!.votingPower, 10n);
      const chain = await comet.blockchain(1, head);
      assert.equal(chain.lastHeight, head);
      assert.equal(chain.blockMetas[0]!.header.height, head);
      assert.equal(chain.blockMetas.at(-1)!.header.height, Math.max(1, head - 19));
      const { raw } = await signTx(node.http, bob.privateKey, { to: alice.address, value: 1n });
      const sent = await comet.broadcastTxSync({ tx: Buffer.from(raw.slice(2), 'hex') });
      let tx;
      for (let i = 0; i < 50 && !tx; i++) tx = await comet.tx({ hash: sent.hash }).catch(() => undefined);
      assert.ok(tx, 'tx by its CometBFT hash');
      assert.equal(tx.result.code, 0);
      assert.ok(tx.result.gasUsed > 0n);
      await assert.rejects(comet.tx({ hash: new Uint8Array(32) }), /not found/);
    } finally {
      comet.disconnect();
    }
  });

  it("/websocket: subscribe to tm.event='NewBlock' and 'Tx', then unsubscribe", async () => {
    const ws = await Comet38Client.connect(node.comet.replace('http://', 'ws://'));
    try {
      const head = (await ws.status()).syncInfo.latestBlockHeight;
      const blocks: number[] = [];
      const txs: number[] = [];
      const gotBlock = new Promise<void>((res, rej) => {
        const sub = ws.subscribeNewBlock().subscribe({
          next: (b) => {
            blocks.push(b.header.height);
            sub.unsubscribe();
            res();
          },
          error: rej,
        });
      });
      const gotTx = new Promise<void>((res, rej) => {
        const sub = ws.subscribeTx().subscribe({
          next: (t) => {
            txs.push(t.height);
            sub.unsubscribe();
            res();
          },
          error: rej,
        });
      });
      await new Promise((r) => setTimeout(r, 200)); // let the subscriptions reach the node
      const { raw } = await signTx(node.http, alice.privateKey, { to: bob.address, value: 1n });
      await rpcResult(node.http, 'eth_sendRawTransaction', [raw]);
      await Promise.all([gotBlock, gotTx]);
      assert.equal(blocks[0], head + 1);
      assert.equal(txs[0], head + 1);
    } finally {
      closeWs(ws);
    }
  });
});
