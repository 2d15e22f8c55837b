// `kestreld query bank balances` and `kestreld debug addr` as a user runs them against a real node: exact SDK
// output (json and YAML text), hex accepted, and one clear stderr line with exit code 1 on every bad input.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { bech32 } from 'bech32';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { cli } from '../helpers/cosmos.ts';
import { freePort, type KestrelNode, printLogsOnFailure, rpcResult, startNode } from '../helpers/node.ts';

const alice = DEV_ACCOUNTS[0]!;
const aliceAcc = bech32.encode('kestrel', bech32.toWords(Buffer.from(alice.address.slice(2), 'hex')));
const aliceVal = bech32.encode('kestrelvaloper', bech32.toWords(Buffer.from(alice.address.slice(2), 'hex')));

describe('kestreld query bank balances / debug addr', { timeout: 120_000 }, () => {
  let node: KestrelNode;
  let tcp: string;
  afterEach(printLogsOnFailure(() => node));
  before(async () => {
    node = await startNode();
    tcp = node.comet.replace('http://', 'tcp://');
  });
  after(async () => node?.dispose());

  it('prints the SDK JSON and YAML; a hex address is converted; --denom prints the coin', async () => {
    const eth = BigInt(await rpcResult(node.http, 'eth_getBalance', [alice.address, 'latest'])).toString();
    const json = await cli(['query', 'bank', 'balances', aliceAcc, '--node', tcp, '--output', 'json']);
    assert.equal(json.code, 0, json.stderr);
    assert.equal(
      json.stdout,
      `{"balances":[{"denom":"akestrel","amount":"${eth}"},{"denom":"stake","amount":"${10n ** 24n}"}],"pagination":{"next_key":null,"total":"0"}}\n`,
    );
    const text = await cli(['q', 'bank', 'balances', alice.address, '--node', tcp, '--count-total']);
    assert.equal(text.code, 0, text.stderr);
    assert.equal(
      text.stdout,
      `balances:\n- amount: "${eth}"\n  denom: akestrel\n- amount: "${10n ** 24n}"\n  denom: stake\npagination:\n  next_key: null\n  total: "2"\n`,
    );
    const coin = await cli(['q', 'bank', 'balances', aliceAcc, '--node', tcp, '--denom', 'stake', '-o', 'json']);
    assert.equal(coin.stdout, `{"denom":"stake","amount":"${10n ** 24n}"}\n`);
    const empty = await cli(['q', 'bank', 'balances', '0x000000000000000000000000000000000000dEaD', '--node', tcp]);
    assert.equal(empty.stdout, 'balances: []\npagination:\n  next_key: null\n  total: "0"\n');
    const atGenesis = await cli(['q', 'bank', 'balances', aliceAcc, '--node', tcp, '-o', 'json', '--height', '0']);
    assert.equal(atGenesis.code, 0, atGenesis.stderr);
  });

  const closedPort = freePort();
  const bad: Array<[string, () => Promise<string[]>, RegExp]> = [
    ['malformed bech32', async () => ['kestrel1xyz'], /^Error: decoding bech32 failed: .+\n$/],
    [
      'bad checksum',
      async () => [aliceAcc.slice(0, -1) + (aliceAcc.endsWith('q') ? 'p' : 'q')],
      /^Error: decoding bech32 failed: invalid checksum \(expected \w+ got \w+\)\n$/,
    ],
    [
      'wrong prefix',
      async () => [bech32.encode('cosmos', bech32.toWords(new Uint8Array(20)))],
      /^Error: invalid Bech32 prefix; expected kestrel, got cosmos\n$/,
    ],
    [
      'negative height',
      async () => [aliceAcc, '--height', '-1'],
      /^Error: invalid height -1: must be a non-negative integer \(0 = latest\)\n$/,
    ],
    [
      'future height',
      async () => [aliceAcc, '--height', '999999'],
      /^Error: rpc error: code = NotFound desc = height 999999 must be less than or equal to the current blockchain height \d+: key not found\n$/,
    ],
    [
      'unreachable node',
      async () => [aliceAcc, '--node', `tcp://127.0.0.1:${await closedPort}`],
      /^Error: post failed: Post "http:\/\/127\.0\.0\.1:\d+": dial tcp 127\.0\.0\.1:\d+: connect: connection refused\n$/,
    ],
    [
      'invalid denom',
      async () => [aliceAcc, '--denom', '1'],
      /^Error: rpc error: code = InvalidArgument desc = invalid denom: 1: invalid request\n$/,
    ],
  ];
  for (const [name, args, stderr] of bad) {
    it(`fails with one line and exit code 1 on ${name}`, async () => {
      const a = await args();
      const r = await cli(['q', 'bank', 'balances', ...a, ...(a.includes('--node') ? [] : ['--node', tcp])]);
      assert.equal(r.code, 1);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, stderr);
    });
  }

  it('debug addr converts hex ↔ bech32 (acc and valoper) over the same bytes', async () => {
    const fromHex = await cli(['debug', 'addr', alice.address]);
    const expected =
      [
        `Address bytes: [${[...Buffer.from(alice.address.slice(2), 'hex')].join(' ')}]`,
        `Address (hex): ${alice.address.slice(2).toUpperCase()}`,
        `Address (EIP-55): ${alice.address}`,
        `Bech32 Acc: ${aliceAcc}`,
        `Bech32 Val: ${aliceVal}`,
      ].join('\n') + '\n';
    assert.equal(fromHex.stdout, expected);
    assert.equal((await cli(['debug', 'addr', aliceAcc])).stdout, expected);
    assert.equal((await cli(['debug', 'addr', aliceVal])).stdout, expected);
    const bad = await cli(['debug', 'addr', 'nope']);
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr, "Error: expected a valid hex or bech32 address (acc prefix kestrel), got 'nope'\n");
  });
});
