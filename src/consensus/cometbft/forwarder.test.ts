// The forwarder's ordering and failure rules, with broadcast_tx_sync played by a function that answers the way
// CometBFT's mempool does (strict per-sender nonces). The real CometBFT is exercised in test/integration/abci.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import type { CheckedTx } from '../../app/app.ts';
import { createChainCommon } from '../../app/evm/common.ts';
import { decodeTx } from '../../app/evm/validate.ts';
import { testRules } from '../../app/evm/validate.testing.ts';
import { deriveAccounts, DEV_MNEMONIC, type DevAccount } from '../../keys/devAccounts.ts';
import { TxPool } from '../../mempool/pool.ts';
import { CometForwarder, CometUnreachableError, type BroadcastResult } from './forwarder.ts';

const common = createChainCommon(9000n);
const rules = testRules({ baseFee: 1n });
const [alice, bob] = deriveAccounts(DEV_MNEMONIC, 2) as [DevAccount, DevAccount];

function tx(from: DevAccount, nonce: bigint): CheckedTx {
  const raw = createFeeMarket1559Tx(
    {
      chainId: 9000n,
      nonce,
      gasLimit: 21_000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 1n,
      to: bob.address,
      value: 1n,
    },
    { common },
  )
    .sign(from.privateKey)
    .serialize();
  return { ...decodeTx(raw, rules), stateNonce: 0n };
}

/** A CometBFT mempool stand-in: accepts each sender's next nonce only; can be switched off or made to refuse. */
function mempool() {
  const next = new Map<string, bigint>();
  const seen: string[] = [];
  const state = { down: false, refuse: new Set<bigint>() };
  const broadcast = async (raw: Uint8Array): Promise<BroadcastResult> => {
    if (state.down) throw new CometUnreachableError('CometBFT RPC unreachable: connect ECONNREFUSED');
    const t = decodeTx(raw, rules);
    const key = Buffer.from(t.sender).toString('hex');
    const want = next.get(key) ?? 0n;
    if (state.refuse.has(t.tx.nonce))
      return { code: 5, log: 'insufficient funds for gas * price + value', codespace: 'sdk' };
    if (t.tx.nonce !== want)
      return { code: 32, log: `nonce too high: tx: ${t.tx.nonce} state: ${want}`, codespace: 'sdk' };
    next.set(key, want + 1n);
    seen.push(`${from(t.sender)}${t.tx.nonce}`);
    return { code: 0, log: '', codespace: '' };
  };
  return { broadcast, seen, state, reset: () => next.clear() };
}
const from = (s: Uint8Array) => (s[19] === alice.address[19] ? 'a' : 'b');

describe('CometForwarder', () => {
  it('forwards executable txs in nonce order and holds a gapped one until the gap fills', async () => {
    const pool = new TxPool({}, () => {});
    const m = mempool();
    const fwd = new CometForwarder(pool, m.broadcast, () => {});
    const submit = async (t: CheckedTx) => {
      pool.add(t, t.stateNonce);
      await fwd.submitted(t);
    };
    await submit(tx(alice, 0n));
    await submit(tx(alice, 2n)); // gap: held
    assert.deepEqual(m.seen, ['a0']);
    await submit(tx(bob, 0n));
    await submit(tx(alice, 1n)); // fills the gap: 1 then 2 go
    assert.deepEqual(m.seen, ['a0', 'b0', 'a1', 'a2']);
    await fwd.pump();
    assert.deepEqual(m.seen, ['a0', 'b0', 'a1', 'a2'], 'nothing is sent twice');
    // CometBFT restarts with an empty mempool (it reconnects to the ABCI server): the pending txs go again.
    m.reset();
    fwd.resend();
    await fwd.pump();
    assert.deepEqual(m.seen.slice(4).sort(), ['a0', 'a1', 'a2', 'b0']);
  });

  it("offers a sender's next tx again when it stays unmined for `patience` blocks, and keeps it on a refusal", async () => {
    const pool = new TxPool({}, () => {});
    const m = mempool();
    const fwd = new CometForwarder(pool, m.broadcast, () => {});
    const [a0, a1] = [tx(alice, 0n), tx(alice, 1n)];
    pool.add(a0, 0n);
    pool.add(a1, 0n);
    await fwd.pump();
    assert.deepEqual(m.seen, ['a0', 'a1']);
    // CometBFT lost both (no restart seen by this node): nothing is resent before the patience runs out.
    m.reset();
    fwd.reofferStalled(3);
    fwd.reofferStalled(3);
    await fwd.pump();
    assert.deepEqual(m.seen, ['a0', 'a1']);
    fwd.reofferStalled(3);
    await fwd.pump();
    assert.deepEqual(m.seen, ['a0', 'a1', 'a0', 'a1'], 'the stalled head goes again, the later nonce behind it');
    // A re-offer CometBFT refuses (here: it still holds a0, so the nonce is taken) leaves the tx pooled.
    for (let k = 0; k < 3; k++) fwd.reofferStalled(3);
    await fwd.pump();
    assert.ok(pool.get(a0.hash) && pool.get(a1.hash), 'refused re-offers stay pooled');
    assert.deepEqual(m.seen, ['a0', 'a1', 'a0', 'a1']);
  });

  it("reports CometBFT's refusal to the submitter and drops the tx; later nonces of that sender wait", async () => {
    const pool = new TxPool({}, () => {});
    const m = mempool();
    const fwd = new CometForwarder(pool, m.broadcast, () => {});
    m.state.refuse.add(0n);
    const t0 = tx(alice, 0n);
    pool.add(t0, 0n);
    const t1 = tx(alice, 1n);
    pool.add(t1, 0n);
    await assert.rejects(fwd.submitted(t0), /insufficient funds/);
    assert.equal(pool.get(t0.hash), undefined);
    assert.ok(pool.get(t1.hash), 'the later nonce stays pooled (queued behind the gap)');
    assert.deepEqual(m.seen, []);
  });

  it('keeps a tx CometBFT refuses for its sequence (its check state is ahead) and offers it again after a stall', async () => {
    const pool = new TxPool({}, () => {});
    const m = mempool();
    const fwd = new CometForwarder(pool, m.broadcast, () => {});
    const [a0, a1] = [tx(alice, 0n), tx(alice, 1n)];
    // CometBFT's check state counts a nonce it no longer holds (its mempool was lost in a restart): 0 is "taken".
    await m.broadcast(a0.encoded!);
    m.seen.length = 0;
    pool.add(a0, 0n);
    pool.add(a1, 0n);
    await fwd.submitted(a0); // accepted: pooled (and journaled by the node), offered again below
    assert.ok(pool.get(a0.hash) && pool.get(a1.hash), 'both stay pooled: a0 is executable on the committed state');
    assert.deepEqual(m.seen, []);
    // Its check state catches up (the next commit rechecks an empty mempool); after the stall both go, in order.
    m.reset();
    for (let k = 0; k < 3; k++) fwd.reofferStalled(3);
    await fwd.pump();
    assert.deepEqual(m.seen, ['a0', 'a1']);
  });

  it('keeps txs pooled while CometBFT is unreachable and sends them once it is back', async () => {
    const pool = new TxPool({}, () => {});
    const m = mempool();
    const fwd = new CometForwarder(pool, m.broadcast, () => {});
    m.state.down = true;
    const t0 = tx(alice, 0n);
    const t1 = tx(alice, 1n);
    pool.add(t0, 0n);
    pool.add(t1, 0n);
    await assert.rejects(fwd.submitted(t0), /unreachable/);
    await fwd.submitted(t1); // behind t0: held, not refused
    assert.ok(pool.get(t0.hash) && pool.get(t1.hash));
    m.state.down = false;
    await fwd.pump();
    assert.deepEqual(m.seen, ['a0', 'a1']);
    await fwd.stop();
  });
});
