// Unit tests of the pure parts of the `npm run bench` harness (bench/): wrk output parsing, medians, ratios,
// verdicts, table formatting, option parsing and transaction signing. The bench itself is not run by `npm test`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Transaction } from 'ethers';
import { balanceOfData, recipientTopic, tokenConstructorArgs, word } from '../../bench/lib/contracts.ts';
import { devAccounts, signLegacy } from '../../bench/lib/tx.ts';
import { luaScript, parseWrkOutput } from '../../bench/lib/wrk.ts';
import { isCompleteRun, parseArgs } from '../../bench/options.ts';
import {
  aggregate,
  bestPeer,
  formatTable,
  median,
  peerFigure,
  ratio,
  rowsToJson,
  verdict,
  type Row,
  type Sample,
  type Status,
} from '../../bench/report.ts';
import { roundRobin, type SendOutcome } from '../../bench/workloads/send.ts';
import { benchWrites, outcomeToSample, WRITE_PEERS, writeSample, writeSpecs } from '../../bench/workloads/writes.ts';

const WRK_OUTPUT = `Running 2s test @ http://127.0.0.1:8545
  2 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   412.50us  120.00us   8.20ms   91.00%
    Req/Sec    38.12k     1.23k   40.00k    70.00%
  152345 requests in 2.00s, 18.00MB read
  Socket errors: connect 0, read 2, write 0, timeout 3
  Non-2xx or 3xx responses: 7
Requests/sec:  76172.50
Transfer/sec:      9.00MB
`;

describe('wrk output', () => {
  it('parses requests, duration, rate, latency and errors', () => {
    const r = parseWrkOutput(WRK_OUTPUT);
    assert.equal(r.requests, 152345);
    assert.equal(r.seconds, 2);
    assert.equal(r.requestsPerSec, 76172.5);
    assert.ok(Math.abs(r.latencyMeanMs - 0.4125) < 1e-9);
    assert.equal(r.socketErrors, 5);
    assert.equal(r.non2xx, 7);
  });
  it('treats missing error lines as zero and converts ms latency', () => {
    const r = parseWrkOutput(
      '    Latency     1.50ms  0.1ms 3ms 90%\n  10 requests in 1.00s, 1KB read\nRequests/sec:     10.00\n',
    );
    assert.equal(r.socketErrors, 0);
    assert.equal(r.non2xx, 0);
    assert.equal(r.latencyMeanMs, 1.5);
  });
  it('rejects output without a summary', () => {
    assert.throws(
      () => parseWrkOutput('unable to connect to 127.0.0.1:1 Connection refused'),
      /unrecognised wrk output/,
    );
  });
  it('embeds the body in a Lua long bracket and refuses one that would end it', () => {
    assert.match(luaScript('{"a":[1]}'), /wrk\.body = \[==\[\{"a":\[1\]\}\]==\]/);
    assert.throws(() => luaScript('x]==]y'), /terminator/);
  });
});

describe('statistics and ratios', () => {
  it('takes medians of odd and even lists without reordering the input', () => {
    const xs = [5, 1, 3];
    assert.equal(median(xs), 3);
    assert.deepEqual(xs, [5, 1, 3]);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.throws(() => median([]));
  });
  it('states ratios as "times better" for both directions', () => {
    assert.equal(ratio(200, 100, 'higher'), 2);
    assert.equal(ratio(50, 100, 'lower'), 2);
    assert.equal(ratio(null, 100, 'higher'), null);
    assert.equal(ratio(10, 0, 'higher'), null);
  });
  it('keeps a failed run visible when folding runs', () => {
    const ok = aggregate([
      { value: 3, status: 'ok' },
      { value: 1, status: 'ok' },
      { value: 2, status: 'ok' },
    ]);
    assert.equal(ok.value, 2);
    assert.equal(ok.status, 'ok');
    const bad = aggregate([
      { value: 3, status: 'ok' },
      { value: 1, status: 'stalled', note: '10/50 mined' },
    ]);
    assert.equal(bad.status, 'stalled');
    assert.equal(bad.note, 'stalled in 1/2 runs: 10/50 mined');
    assert.equal(aggregate([]).status, 'skipped');
    const once = aggregate([
      { value: 7, status: 'ok' },
      { value: null, status: 'skipped', note: 'first run only' },
    ]);
    assert.equal(once.status, 'ok');
    assert.equal(once.value, 7);
    assert.equal(once.samples.length, 2);
    assert.equal(aggregate([{ value: null, status: 'skipped', note: 'x' }]).note, 'x');
  });
});

function row(partial: Partial<Row> & Pick<Row, 'figures'>): Row {
  return {
    id: 'r',
    label: 'eth_blockNumber, 2 conn',
    unit: 'req/s',
    better: 'higher',
    target: { kind: 'vsBest', factor: 1.2 },
    ...partial,
  };
}
const fig = (value: number | null, status: Status = 'ok', note?: string) => ({
  value,
  status,
  note,
  samples: [{ value, status }],
});

describe('targets', () => {
  it('compares Kestrel with the best peer whose figure is ok', () => {
    const r = row({ figures: { kestrel: fig(115), anvil: fig(100), hardhat: fig(500, 'stalled'), ganache: fig(90) } });
    assert.deepEqual(bestPeer(r), { name: 'anvil', value: 100, bounded: false });
    assert.equal(verdict(r), 'missed');
    assert.equal(verdict(row({ figures: { kestrel: fig(120), anvil: fig(100) } })), 'met');
  });
  it('uses the lowest peer for latencies and the absolute limit for max targets', () => {
    const lat = row({
      unit: 'ms',
      better: 'lower',
      target: { kind: 'vsBest', factor: 1 },
      figures: { kestrel: fig(20), anvil: fig(29), hardhat: fig(15) },
    });
    assert.deepEqual(bestPeer(lat), { name: 'hardhat', value: 15, bounded: false });
    assert.equal(verdict(lat), 'missed');
    const startup = row({
      unit: 'ms',
      better: 'lower',
      target: { kind: 'max', limit: 500 },
      figures: { kestrel: fig(499), anvil: fig(30) },
    });
    assert.equal(verdict(startup), 'met');
    const share = row({
      unit: '%',
      better: 'higher',
      target: { kind: 'min', limit: 90 },
      figures: { kestrel: fig(90) },
    });
    assert.equal(verdict(share), 'met');
    assert.equal(verdict({ ...share, figures: { kestrel: fig(89.9) } }), 'missed');
  });
  it('lets a peer still mining at the time bound be the best peer, but not Kestrel meet a target that way', () => {
    const r = row({ figures: { kestrel: fig(130), anvil: fig(100, 'timeout') } });
    assert.deepEqual(bestPeer(r), { name: 'anvil', value: 100, bounded: false });
    assert.equal(verdict(r), 'met');
    assert.equal(verdict(row({ figures: { kestrel: fig(130, 'timeout'), anvil: fig(100) } })), 'missed');
  });
  it('misses when Kestrel itself stalled, and is n/a without a usable peer or a Kestrel figure', () => {
    assert.equal(verdict(row({ figures: { kestrel: fig(999, 'stalled'), anvil: fig(100) } })), 'missed');
    assert.equal(verdict(row({ figures: { kestrel: fig(100), anvil: fig(100, 'stalled') } })), 'n/a');
    assert.equal(verdict(row({ figures: { kestrel: fig(null, 'unsupported'), anvil: fig(100) } })), 'n/a');
  });
});

describe('table and JSON', () => {
  it('prints figures, ratios, best peer, target and notes as Markdown', () => {
    const rows = [
      row({
        figures: {
          kestrel: fig(12_000),
          anvil: fig(10_000),
          hardhat: fig(null, 'stalled', 'stalled in 1/1 run: 3/50 mined'),
        },
      }),
    ];
    const t = formatTable(rows, ['kestrel', 'anvil', 'hardhat']);
    const lines = t.split('\n');
    assert.equal(
      lines[0],
      '| workload | unit | kestrel | anvil | hardhat | K/anvil | K/hardhat | K/best | target | verdict |',
    );
    assert.equal(
      lines[2],
      '| eth_blockNumber, 2 conn | req/s | 12,000 | 10,000 | stalled | 1.20× | – | 1.20× (anvil) | ≥ 1.2× best peer | met |',
    );
    assert.ok(t.includes('- eth_blockNumber, 2 conn — hardhat: stalled in 1/1 run: 3/50 mined'));
  });
  it('puts ratios, the best peer and the verdict in the JSON rows', () => {
    const [j] = rowsToJson([row({ figures: { kestrel: fig(50), anvil: fig(100) } })], ['kestrel', 'anvil']) as Array<
      Record<string, any>
    >;
    assert.deepEqual(j!.ratios, { anvil: 0.5 });
    assert.equal(j!.best.node, 'anvil');
    assert.equal(j!.target.verdict, 'missed');
  });
});

describe('options', () => {
  it('defaults to a complete full run', () => {
    const o = parseArgs([]);
    assert.equal(o.quick, false);
    assert.equal(o.runs, 3);
    assert.deepEqual(o.nodes, ['kestrel', 'anvil', 'anvil-prune', 'hardhat', 'ganache']);
    assert.deepEqual(o.writeSizes, [1000, 5000]);
    assert.ok(isCompleteRun(o));
  });
  it('parses quick mode and selections in canonical order', () => {
    const o = parseArgs(['--quick', '--only', 'anvil,kestrel', '--workload=reads', '--runs', '2']);
    assert.equal(o.quick, true);
    assert.deepEqual(o.nodes, ['kestrel', 'anvil']);
    assert.deepEqual(o.workloads, ['reads']);
    assert.equal(o.runs, 2);
    assert.ok(Math.max(...o.writeSizes) < 1000);
    assert.equal(isCompleteRun(o), false);
  });
  it('rejects unknown nodes, workloads, flags and bad numbers', () => {
    assert.throws(() => parseArgs(['--only', 'geth']), /unknown "geth"/);
    assert.throws(() => parseArgs(['--workload', 'fast']), /unknown "fast"/);
    assert.throws(() => parseArgs(['--fast']), /unknown argument/);
    assert.throws(() => parseArgs(['--runs', '0']), /positive integer/);
    assert.throws(() => parseArgs(['--only']), /comma-separated/);
  });
});

describe('transactions and calldata', () => {
  it('signs EIP-155 legacy transactions that recover to the dev account', () => {
    const [a] = devAccounts(1);
    assert.equal(a!.address, '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266');
    const tx = signLegacy(a!, 31337n, {
      nonce: 7,
      gas: 21_000n,
      to: '0x00000000000000000000000000000000be000001',
      value: 1n,
      data: '0x',
    });
    const parsed = Transaction.from(tx.raw);
    assert.equal(parsed.from?.toLowerCase(), a!.address);
    assert.equal(parsed.chainId, 31337n);
    assert.equal(parsed.nonce, 7);
    assert.equal(parsed.hash, tx.hash);
  });
  it('encodes ABI words, balanceOf calldata and the token constructor arguments', () => {
    assert.equal(word(1), '0'.repeat(63) + '1');
    assert.throws(() => word(2n ** 256n), /overflow/);
    assert.equal(balanceOfData('0x' + 'ab'.repeat(20)), '0x70a08231' + '0'.repeat(24) + 'ab'.repeat(20));
    const args = tokenConstructorArgs(['0x' + '11'.repeat(20)], 5n);
    assert.equal(args.length, 64 * 4);
    assert.equal(args.slice(128, 192), word(1));
    assert.equal(recipientTopic(7), '0x' + word(0x1007));
  });
  it('interleaves senders round-robin', () => {
    assert.deepEqual(roundRobin([[1, 2, 3], [10], [20, 21]]), [1, 10, 20, 2, 21, 3]);
  });
  it('marks a write run with rejections or a stall instead of reporting a clean rate', () => {
    const base = {
      total: 10,
      mined: 10,
      reverted: 0,
      rejected: 0,
      unanswered: 0,
      stalled: false,
      timedOut: false,
      seconds: 2,
      errors: [],
      receiptPolls: 0,
    };
    assert.deepEqual(outcomeToSample(base), { value: 5, status: 'ok' });
    const s = outcomeToSample({ ...base, mined: 4, rejected: 2, stalled: true, errors: ['Nonce too high'] });
    assert.equal(s.status, 'stalled');
    assert.equal(s.note, '4/10 mined; rejected 2; no new receipt within the stall bound; errors: "Nonce too high"');
    const slow = outcomeToSample({ ...base, mined: 6, timedOut: true });
    assert.equal(slow.status, 'timeout');
    assert.equal(slow.value, 3);
    assert.equal(outcomeToSample({ ...base, mined: 6, timedOut: true, unanswered: 1 }).status, 'hung');
  });
});

describe('the write group (issue 27, target 1)', () => {
  const done: SendOutcome = {
    total: 5000,
    mined: 5000,
    reverted: 0,
    rejected: 0,
    unanswered: 0,
    stalled: false,
    timedOut: false,
    seconds: 4,
    errors: [],
    receiptPolls: 9000,
  };
  it('runs value and ERC20 transfers at every size, against Anvil, Anvil --prune-history and Hardhat', () => {
    assert.deepEqual(
      benchWrites([1000, 5000]).map((w) => [w.id, w.kind, w.mode, w.size]),
      [
        ['write.transfer.inflight.1000', 'transfer', 'awaited', 1000],
        ['write.erc20.inflight.1000', 'erc20', 'awaited', 1000],
        ['write.transfer.inflight.5000', 'transfer', 'awaited', 5000],
        ['write.erc20.inflight.5000', 'erc20', 'awaited', 5000],
      ],
    );
    const specs = writeSpecs({ sizes: [1000, 5000] });
    assert.equal(specs[1]!.label, '1,000 ERC20 transfers, 32 in flight, all mined');
    assert.deepEqual(specs[3]!.target, { kind: 'vsBest', factor: 1.2, peers: ['anvil', 'anvil-prune', 'hardhat'] });
    assert.equal(specs[4]!.label, 'RSS after the 4 write workloads in sequence on one process');
  });
  it('gives a rate only to a run that mined every transaction, and a bound to one that was slow or stuck', () => {
    assert.deepEqual(writeSample(done), { value: 1250, status: 'ok' });
    const stuck = writeSample({ ...done, mined: 4334, stalled: true, seconds: 62.5 });
    assert.equal(stuck.value, null);
    assert.equal(stuck.status, 'stalled');
    assert.equal(stuck.bound, 80);
    assert.match(stuck.note!, /4,334\/5,000 mined; no new receipt within the stall bound \(4,334 in 62\.5 s\)/);
    assert.equal(writeSample({ ...done, mined: 3000, timedOut: true, seconds: 45 }).bound, 5000 / 45);
    // A node that refused or lost transactions could never finish: no bound, it is not compared.
    const refused = writeSample({ ...done, mined: 4000, rejected: 1000, stalled: true, seconds: 20 });
    assert.equal(refused.value, null);
    assert.equal(refused.bound, undefined);
    assert.equal(writeSample({ ...done, mined: 4990, reverted: 10 }).bound, undefined);
  });
  const figure = (...samples: Sample[]) => aggregate(samples);
  const ok = (v: number): Sample => ({ value: v, status: 'ok' });
  const stalled = (bound: number): Sample => ({ value: null, status: 'stalled', note: 'n/5,000 mined', bound });
  const writeRow = (figures: Row['figures']): Row =>
    row({
      label: '5,000 ERC20 transfers',
      unit: 'tx/s',
      target: { kind: 'vsBest', factor: 1.2, peers: WRITE_PEERS },
      figures,
    });
  it('compares with the fastest of the target peers only, a peer that did not finish at its bound', () => {
    assert.deepEqual(peerFigure(figure(ok(300), ok(100), ok(200))), { value: 200, bounded: false });
    assert.deepEqual(peerFigure(figure(ok(300), stalled(80), ok(200))), { value: 200, bounded: true });
    assert.deepEqual(peerFigure(figure(stalled(90), stalled(80), stalled(70))), { value: 80, bounded: true });
    assert.equal(peerFigure(figure({ value: null, status: 'rejected' })), null);
    const r = writeRow({
      kestrel: figure(ok(1300), ok(1250), ok(1200)),
      anvil: figure(stalled(90), stalled(80), stalled(70)),
      'anvil-prune': figure(ok(900), stalled(1100), ok(1000)),
      hardhat: figure(ok(600), ok(500), ok(550)),
      // Not one of the target's peers: never the best, however fast.
      ganache: figure(ok(5000), ok(5000), ok(5000)),
    });
    assert.deepEqual(bestPeer(r), { name: 'anvil-prune', value: 1000, bounded: true });
    assert.equal(verdict(r), 'met');
    const t = formatTable([r], ['kestrel', 'anvil', 'anvil-prune', 'hardhat', 'ganache']).split('\n');
    assert.equal(
      t[2],
      '| 5,000 ERC20 transfers | tx/s | 1,250 | ≤ 80.0 (stalled) | ≤ 1,000 (stalled) | 550 | 5,000 | ≥ 15.63× | ≥ 1.25× | 2.27× | 0.25× | ≥ 1.25× (anvil-prune) | ≥ 1.2× best of anvil, anvil-prune, hardhat | met |',
    );
    const [j] = rowsToJson([r], ['kestrel', 'anvil-prune']) as Array<Record<string, any>>;
    assert.deepEqual(j!.best, { node: 'anvil-prune', value: 1000, bounded: true, ratio: 1.25 });
  });
  it('misses when Kestrel did not mine every transaction in every run, whatever its rate', () => {
    const r = writeRow({
      kestrel: figure(ok(5000), stalled(4000), ok(5000)),
      hardhat: figure(ok(500), ok(500), ok(500)),
    });
    assert.equal(r.figures.kestrel!.status, 'stalled');
    assert.equal(verdict(r), 'missed');
    assert.equal(verdict({ ...r, figures: { ...r.figures, kestrel: figure(ok(590), ok(600), ok(610)) } }), 'met');
    assert.equal(verdict({ ...r, figures: { ...r.figures, kestrel: figure(ok(590), ok(599), ok(610)) } }), 'missed');
  });
});
