// The ABCI adapter over a real KestrelApp (LevelDB store): determinism across validators with different
// node-local settings, the check state's nonce rules, proposal checks, and crash-before-Commit recovery.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { ResponseProcessProposal_ProposalStatus, type RequestFinalizeBlock } from 'cosmjs-types/tendermint/abci/types';
import { Bank } from '../../app/bank/bank.ts';
import { BankStore } from '../../app/bank/store.ts';
import { parseGenesis } from '../../app/genesis.ts';
import { deriveAccounts, DEV_MNEMONIC, type DevAccount } from '../../keys/devAccounts.ts';
import { bytesToHex } from '../../primitives/hex.ts';
import { SenderRecovery } from '../../mempool/recovery/workers.ts';
import { CometApplication, consensusAddress } from './application.ts';
import { DEV_GENESIS, DEV_GENESIS_DOC, openTestApp, TEST_COMMON } from '../../../test/helpers/app.ts';

const common = TEST_COMMON;
const genesisDoc = DEV_GENESIS_DOC;
const [alice, bob] = deriveAccounts(DEV_MNEMONIC, 2) as [DevAccount, DevAccount];
const GWEI = 1_000_000_000n;
const dirs: string[] = [];
const recoveries: SenderRecovery[] = [];
after(async () => {
  for (const r of recoveries) await r.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Sender recovery on `workers` threads, started (so the first batches go to the workers, not inline). */
async function workerRecovery(workers: number): Promise<SenderRecovery> {
  const r = new SenderRecovery({ workers, minBatch: 1 });
  recoveries.push(r);
  await r.start();
  return r;
}

async function node(
  local: {
    etherbase: number;
    minGasPrice: bigint;
    feeRecipients?: Map<string, Uint8Array>;
    log?: (l: string) => void;
    recovery?: SenderRecovery;
  },
  dir = mkdtempSync(join(tmpdir(), 'kestrel-abci-')),
) {
  if (!dirs.includes(dir)) dirs.push(dir);
  const { kv, state, app } = await openTestApp(join(dir, 'db'), () => ({
    minGasPrice: local.minGasPrice,
    etherbase: new Uint8Array(20).fill(local.etherbase),
  }));
  const bank = new Bank(await BankStore.open(kv, DEV_GENESIS), state, DEV_GENESIS);
  const abci = new CometApplication({
    app,
    appHash: (b) => bank.appHash(b),
    genesisDoc,
    version: 'test',
    log: local.log ?? (() => {}),
    feeRecipients: local.feeRecipients,
    recover: local.recovery && ((job) => local.recovery!.recover(job)),
  });
  return { kv, app, abci, dir };
}

function tx(from: DevAccount, nonce: bigint, value = 1n, tip = GWEI): Uint8Array {
  return createFeeMarket1559Tx(
    {
      chainId: 9000n,
      nonce,
      to: bob.address,
      value,
      gasLimit: 21000n,
      maxFeePerGas: 10n * GWEI,
      maxPriorityFeePerGas: tip,
    },
    { common },
  )
    .sign(from.privateKey)
    .serialize();
}

/** A tx whose signature passes the value checks but recovers no key (r = 5 is no point's x): "invalid sender". */
function unrecoverable(): Uint8Array {
  const fields = { chainId: 9000n, nonce: 3n, to: bob.address, gasLimit: 21000n, maxFeePerGas: 10n * GWEI };
  return createFeeMarket1559Tx({ ...fields, maxPriorityFeePerGas: GWEI, v: 0n, r: 5n, s: 1n }, { common }).serialize();
}

function block(height: bigint, txs: Uint8Array[], seconds: bigint): RequestFinalizeBlock {
  return {
    txs,
    height,
    hash: new Uint8Array(32).fill(Number(height)),
    time: { seconds, nanos: 0 },
    proposerAddress: new Uint8Array(20).fill(0xab),
    decidedLastCommit: { round: 0, votes: [] },
    misbehavior: [],
    nextValidatorsHash: new Uint8Array(32),
  };
}

const plain = (v: unknown) =>
  JSON.parse(
    JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x instanceof Uint8Array ? bytesToHex(x) : x)),
  );

describe('CometBFT application', () => {
  it('gives the same results, app hashes and Ethereum block hashes on validators with different local settings', async () => {
    const a = await node({ etherbase: 0x01, minGasPrice: 0n });
    const b = await node({ etherbase: 0x02, minGasPrice: 5n * GWEI });
    // A third validator recovers the blocks' senders on two worker threads (ProcessProposal and FinalizeBlock).
    const recovery = await workerRecovery(2);
    const w = await node({ etherbase: 0x03, minGasPrice: 0n, recovery });
    const garbage = Uint8Array.of(0x02, 0xc0);
    const blocks = [
      block(1n, [tx(alice, 0n), tx(alice, 1n, 5n), garbage, tx(alice, 1n, 7n), tx(alice, 5n)], 1_800_000_000n),
      block(2n, [], 1_800_000_000n), // the same BFT second: the header keeps the BFT time, not parent + 1
      block(3n, [tx(alice, 2n, 3n), unrecoverable()], 1_800_000_002n),
      // Above MAIN_SHARE_FROM: the workers' validator recovers a share on its main thread, the rest on the workers.
      block(4n, [...Array.from({ length: 80 }, (_, i) => tx(alice, 3n + BigInt(i))), unrecoverable()], 1_800_000_002n),
    ];
    for (const n of [a, b, w]) {
      const init = n.abci.initChain({
        chainId: 'kestrel_9000-1',
        validators: [],
        appStateBytes: new Uint8Array(0),
        initialHeight: 1n,
        time: { seconds: 0n, nanos: 0 },
      });
      assert.deepEqual(init.appHash, n.abci.info().lastBlockAppHash);
    }
    for (const [i, req] of blocks.entries()) {
      // The workers' validator sees the first block only in FinalizeBlock, the others after a ProcessProposal.
      if (i > 0) {
        const proposal = { ...req, proposedLastCommit: { round: 0, votes: [] } };
        const [pa, pw] = [await a.abci.processProposal(proposal), await w.abci.processProposal(proposal)];
        assert.equal(pw.status, pa.status);
        // Blocks 3 and 4 hold the tx whose signature recovers no key: a malformed proposal, with or without workers.
        const want =
          i >= 2 ? ResponseProcessProposal_ProposalStatus.REJECT : ResponseProcessProposal_ProposalStatus.ACCEPT;
        assert.equal(pw.status, want);
      }
      const [ra, rb, rw] = [
        await a.abci.finalizeBlock(req),
        await b.abci.finalizeBlock(req),
        await w.abci.finalizeBlock(req),
      ];
      assert.deepEqual(plain(ra), plain(rb));
      assert.deepEqual(plain(rw), plain(ra));
      assert.equal(ra.txResults.length, req.txs.length);
      for (const n of [a, b, w]) await n.abci.commit();
      assert.equal(bytesToHex(a.app.head.hash), bytesToHex(b.app.head.hash));
      assert.equal(bytesToHex(w.app.head.hash), bytesToHex(a.app.head.hash));
    }
    assert.equal(a.app.head.number, 4n);
    assert.ok(
      recovery.inlineJobs > 0 && recovery.inlineJobs < 81,
      'block 4 was shared by the main thread and the workers',
    );
    assert.equal(bytesToHex(a.app.head.header.coinbase.bytes), '0x' + 'ab'.repeat(20)); // the proposer, not the etherbase
    const h1 = a.app.head.header.timestamp;
    assert.equal(h1, 1_800_000_002n);
    // Block 1: two valid txs (code 0, receipt gas), the undecodable one (code 2), the duplicate nonce and the gap (failed).
    const r1 = await (async () => {
      const c = await node({ etherbase: 9, minGasPrice: 0n });
      c.abci.initChain({
        chainId: 'kestrel_9000-1',
        validators: [],
        appStateBytes: new Uint8Array(0),
        initialHeight: 1n,
        time: { seconds: 0n, nanos: 0 },
      });
      const res = await c.abci.finalizeBlock(blocks[0]!);
      await c.kv.close();
      return res;
    })();
    assert.deepEqual(
      r1.txResults.map((r) => r.code),
      [0, 0, 2, 18, 18],
    );
    assert.deepEqual(
      r1.txResults.map((r) => r.gasUsed),
      [21000n, 21000n, 0n, 0n, 0n],
    );
    assert.equal(r1.txResults[0]!.events[0]!.attributes[0]!.key, 'ethereumTxHash');
    for (const n of [a, b, w]) await n.kv.close();
  });

  for (const workers of [0, 2]) {
    it(`admits each sender nonce by nonce, refuses gaps, and rebuilds the check state on RECHECK after Commit (${workers} recovery workers)`, async () => {
      const n = await node({
        etherbase: 1,
        minGasPrice: 0n,
        recovery: workers > 0 ? await workerRecovery(workers) : undefined,
      });
      // As the ABCI server does: each request is seen when read, then answered in its turn.
      const check = (raw: Uint8Array, type = 0) => {
        n.abci.received({ checkTx: { tx: raw, type } });
        return n.abci.checkTx({ tx: raw, type });
      };
      assert.equal((await check(tx(alice, 0n))).code, 0);
      assert.equal((await check(tx(alice, 1n))).code, 0);
      const gap = await check(tx(alice, 3n));
      assert.equal(gap.code, 32);
      assert.match(gap.log, /nonce too high/);
      assert.equal((await check(tx(alice, 1n, 9n))).code, 32); // nonce 1 is taken in the check state
      assert.equal((await check(Uint8Array.of(1, 2, 3))).code, 2);
      const bad = await check(unrecoverable());
      assert.deepEqual([bad.code, bad.log], [2, 'invalid sender']);
      assert.equal(n.abci.pendingNonce(alice.address), 2n);
      await n.abci.finalizeBlock(block(1n, [tx(alice, 0n)], 1_800_000_000n));
      await n.abci.commit();
      assert.equal(n.abci.pendingNonce(alice.address), undefined);
      // CometBFT rechecks what is left (nonce 1) first, in FIFO order; nonce 2 then follows.
      assert.equal((await check(tx(alice, 1n), 1)).code, 0);
      assert.equal((await check(tx(alice, 2n))).code, 0);
      assert.equal((await check(tx(alice, 0n), 1)).code, 32); // mined: evicted on recheck
      await n.kv.close();
    });
  }

  it('accepts well-formed proposals only, and prepares within max_tx_bytes without undecodable txs', async () => {
    const n = await node({ etherbase: 1, minGasPrice: 0n });
    const base = {
      proposedLastCommit: { round: 0, votes: [] },
      misbehavior: [],
      hash: new Uint8Array(32),
      height: 1n,
      time: { seconds: 0n, nanos: 0 },
      nextValidatorsHash: new Uint8Array(32),
      proposerAddress: new Uint8Array(20),
    };
    assert.equal(
      (await n.abci.processProposal({ ...base, txs: [tx(alice, 0n), tx(alice, 7n)] })).status,
      ResponseProcessProposal_ProposalStatus.ACCEPT,
    );
    assert.equal(
      (await n.abci.processProposal({ ...base, txs: [tx(alice, 0n), Uint8Array.of(0xff)] })).status,
      ResponseProcessProposal_ProposalStatus.REJECT,
    );
    const txs = [tx(alice, 0n), Uint8Array.of(0xff), tx(alice, 1n), tx(alice, 2n)];
    const one = txs[0]!.length + 3;
    const prepared = n.abci.prepareProposal({
      maxTxBytes: BigInt(2 * one),
      txs,
      localLastCommit: { round: 0, votes: [] },
      misbehavior: [],
      height: 1n,
      time: { seconds: 0n, nanos: 0 },
      nextValidatorsHash: new Uint8Array(32),
      proposerAddress: new Uint8Array(20),
    });
    assert.deepEqual(
      prepared.txs.map((t) => bytesToHex(t)),
      [txs[0], txs[2]].map((t) => bytesToHex(t!)),
    );
    await n.kv.close();
  });

  it('persists nothing before Commit: after a crash Info reports the previous height, and the block replays identically', async () => {
    const n = await node({ etherbase: 1, minGasPrice: 0n });
    n.abci.initChain({
      chainId: 'kestrel_9000-1',
      validators: [],
      appStateBytes: new Uint8Array(0),
      initialHeight: 1n,
      time: { seconds: 0n, nanos: 0 },
    });
    await n.abci.finalizeBlock(block(1n, [tx(alice, 0n)], 1_800_000_000n));
    await n.abci.commit();
    const req = block(2n, [tx(alice, 1n)], 1_800_000_001n);
    const before = plain(await n.abci.finalizeBlock(req));
    await n.kv.close(); // the process dies between FinalizeBlock and Commit
    const again = await node({ etherbase: 1, minGasPrice: 0n }, n.dir);
    assert.equal(again.abci.info().lastBlockHeight, 1n);
    assert.deepEqual(plain(await again.abci.finalizeBlock(req)), before);
    // CometBFT restarted without the app: the same height is finalized again and the stale one is discarded.
    assert.deepEqual(plain(await again.abci.finalizeBlock(req)), before);
    await again.abci.commit();
    assert.equal(again.abci.info().lastBlockHeight, 2n);
    await assert.rejects(async () => again.abci.finalizeBlock(block(5n, [], 1_800_000_009n)), /next height is 3/);
    await again.kv.close();
  });

  it('refuses a CometBFT genesis for another chain or with a different app_state', async () => {
    const n = await node({ etherbase: 1, minGasPrice: 0n });
    const req = { validators: [], initialHeight: 1n, time: { seconds: 0n, nanos: 0 } };
    assert.throws(
      () => n.abci.initChain({ ...req, chainId: 'test-chain-x', appStateBytes: new Uint8Array(0) }),
      /chain_id "test-chain-x" differs/,
    );
    const other = Buffer.from(JSON.stringify({ ...genesisDoc.app_state, bank: { balances: [], denom_metadata: [] } }));
    assert.throws(
      () => n.abci.initChain({ ...req, chainId: 'kestrel_9000-1', appStateBytes: other }),
      /app_state differs/,
    );
    const same = Buffer.from(JSON.stringify(genesisDoc.app_state));
    assert.equal(n.abci.initChain({ ...req, chainId: 'kestrel_9000-1', appStateBytes: same }).validators.length, 0);
    await n.kv.close();
  });

  it("credits the fees to the proposer's fee recipient from genesis; an unmapped proposer keeps its address, with one warning", async () => {
    const operator = new Uint8Array(20).fill(0x77);
    const doc = {
      ...genesisDoc,
      app_state: {
        ...genesisDoc.app_state,
        fee_recipients: [{ validator: 'ab'.repeat(20), recipient: bytesToHex(operator) }],
      },
    };
    const recipients = parseGenesis(doc, 'kestrel').feeRecipients;
    assert.deepEqual([...recipients.keys()], ['AB'.repeat(20)]);
    assert.throws(
      () =>
        parseGenesis(
          {
            ...doc,
            app_state: { ...doc.app_state, fee_recipients: [{ validator: 'xyz', recipient: bytesToHex(operator) }] },
          },
          'kestrel',
        ),
      /20-byte hex consensus address/,
    );
    const lines: string[] = [];
    const n = await node({ etherbase: 1, minGasPrice: 0n, feeRecipients: recipients, log: (l) => lines.push(l) });
    const edKey = new Uint8Array(32).fill(5);
    n.abci.initChain({
      chainId: 'kestrel_9000-1',
      validators: [{ pubKey: { ed25519: edKey }, power: 10n }],
      appStateBytes: new Uint8Array(0),
      initialHeight: 1n,
      time: { seconds: 0n, nanos: 0 },
    });
    assert.equal(lines.length, 1); // the genesis validator without a mapping
    assert.match(lines[0]!, new RegExp(`validator ${consensusAddress(edKey)} has no fee recipient`));
    const before = (await n.app.headAccount(operator)).balance;
    await n.abci.finalizeBlock(block(1n, [tx(alice, 0n)], 1_800_000_000n)); // proposer 0xab…: mapped
    await n.abci.commit();
    assert.equal(bytesToHex(n.app.head.header.coinbase.bytes), bytesToHex(operator));
    const fee = (await n.app.headAccount(operator)).balance - before;
    assert.equal(fee, 21000n * n.app.head.header.baseFeePerGas! + 21000n * GWEI);
    const unmapped = new Uint8Array(20).fill(0xcd);
    for (const h of [2n, 3n]) {
      await n.abci.finalizeBlock({ ...block(h, [], 1_800_000_000n + h), proposerAddress: unmapped });
      await n.abci.commit();
    }
    assert.equal(bytesToHex(n.app.head.header.coinbase.bytes), bytesToHex(unmapped));
    assert.equal(lines.filter((l) => l.includes('CD'.repeat(20))).length, 1);
    await n.kv.close();
  });
});
