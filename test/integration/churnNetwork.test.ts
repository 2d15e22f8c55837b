// Validator churn under load (issue 30, item 1, the short version): four validators take transfers from four
// senders while one validator at a time is perturbed — kill -9 of its app, kill -9 of its CometBFT, SIGSTOP/SIGCONT
// for 10 s, a restart. Every tx whose hash a node returned must be mined exactly once, every sender's nonce must
// reach its last acknowledged + 1 (a lost tx would leave a gap), and all four nodes must agree on every block.
// The long version: `npm run churn -- --minutes N`.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { churnSummary, runChurn, type ChurnResult } from '../helpers/churn.ts';
import { cometbftMissing } from '../helpers/cometbft.ts';

describe('validator churn under load', { skip: cometbftMissing(), timeout: 420_000 }, () => {
  let result: ChurnResult | undefined;
  after(async () => {
    await result?.net.dispose();
  });

  it('every acknowledged tx is mined exactly once, no sender is stuck, and the nodes agree', async () => {
    result = await runChurn({
      seconds: 100,
      senders: 4,
      everySeconds: 20,
      perturbations: ['killApp', 'killComet', 'pause', 'restart'],
      erc20: false,
      settleSeconds: 90,
      log: (l) => process.stdout.write(`churn: ${l}\n`),
    });
    const r = result;
    process.stdout.write(`churn: ${churnSummary(r)}\n`);
    if (r.lost.length + r.stuck.length + r.disagreements.length > 0) r.net.printLogs('churn found a problem');
    assert.ok(r.perturbed.length >= 4, `perturbations: ${r.perturbed.join(', ')}`);
    assert.ok(r.acknowledged > 100, `only ${r.acknowledged} txs acknowledged`);
    assert.deepEqual(r.lost.slice(0, 20), [], `${r.lost.length} acknowledged txs never mined`);
    assert.deepEqual(r.duplicated, []);
    assert.deepEqual(r.stuck, []);
    assert.deepEqual(r.disagreements.slice(0, 5), []);
    assert.ok(r.blocks > 0);
    // Everything the four validators wrote, grepped for their tokens and keys and the senders' keys.
    assert.ok(r.secretsChecked >= 4 + 4, `only ${r.secretsChecked} secrets grepped for`);
    assert.deepEqual(r.leaked, [], "secrets in the validators' logs");
  });
});
