// eth_syncing under CometBFT: false when caught up, else geth's progress object from CometBFT's status and its
// peers' consensus heights; startingBlock stays where the catch-up began; answers are cached briefly.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CometSyncStatus, highestPeerHeight } from './syncStatus.ts';

function fakeComet() {
  const state = { catchingUp: true, height: '40', peers: ['120', '118'], calls: 0, down: false };
  const call = async (method: string) => {
    state.calls++;
    if (state.down) throw new Error('connection refused');
    if (method === 'status') return { sync_info: { catching_up: state.catchingUp, latest_block_height: state.height } };
    if (method === 'dump_consensus_state')
      return { peers: state.peers.map((h) => ({ peer_state: { round_state: { height: h } } })) };
    throw new Error(`unexpected ${method}`);
  };
  return { state, call };
}

describe('CometSyncStatus', () => {
  it("reports startingBlock, currentBlock and the peers' highest committed height while catching up, then false", async () => {
    const { state, call } = fakeComet();
    let app = 40n;
    let clock = 0;
    const s = new CometSyncStatus(
      call,
      () => app,
      500,
      () => clock,
    );
    assert.deepEqual(await s.progress(), { startingBlock: 40n, currentBlock: 40n, highestBlock: 119n });
    app = 90n;
    state.height = '90';
    assert.deepEqual(await s.progress(), { startingBlock: 40n, currentBlock: 40n, highestBlock: 119n }, 'cached');
    clock += 600;
    assert.deepEqual(await s.progress(), { startingBlock: 40n, currentBlock: 90n, highestBlock: 119n });
    state.catchingUp = false;
    clock += 600;
    assert.equal(await s.progress(), false);
    // A later catch-up starts from where the app is then.
    state.catchingUp = true;
    state.peers = [];
    state.height = '95';
    clock += 600;
    assert.deepEqual(await s.progress(), { startingBlock: 90n, currentBlock: 90n, highestBlock: 95n });
    state.down = true;
    clock += 600;
    assert.equal(await s.progress(), false, 'CometBFT unreachable: the node serves what it has');
  });

  it('reads peer heights defensively', () => {
    assert.equal(highestPeerHeight(undefined), 0n);
    assert.equal(
      highestPeerHeight({
        peers: [{}, { peer_state: { round_state: { height: 'x' } } }, { peer_state: { round_state: { height: '7' } } }],
      }),
      6n,
    );
  });
});
