// Replays execution-apis' fixtures (test/fixtures/execution-apis) against a Kestrel dev node, over HTTP and WS.
// Schema mode: a fixture whose reference answer is a result must get a result that validates against the
// method's OpenRPC schema; one whose reference answer is an error must get an error. Fixtures that need the
// fixture chain's own blocks, transactions or accounts (Kestrel runs its own chain) are listed with the reason.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, afterEach, before, describe, it } from 'node:test';
import { loadIoFixtures, type IoFixture } from '../helpers/ioFixtures.ts';
import { assertConforms, methodsWithSchema } from '../helpers/openrpc.ts';
import { nonCoinbaseAccounts, type DevAccount } from '../helpers/accounts.ts';
import { REPO_ROOT, type KestrelNode, type RpcResponse, printLogsOnFailure, rpc, startNode } from '../helpers/node.ts';
import { sendTx } from '../helpers/tx.ts';
import { WsRpc } from '../helpers/ws.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'execution-apis');
const fixtures = loadIoFixtures(ROOT);
/** The fixture chain's head block number. */
const FIXTURE_HEAD = 0x36;

/** Methods Kestrel does not serve, with the reason (the README names them too). */
const NOT_SERVED: Record<string, string> = {
  testing_buildBlockV1: 'builds a block from payload attributes for a consensus client; Kestrel seals its own blocks',
};

/** Why a fixture cannot pass on Kestrel's chain: it needs the fixture chain's own blocks, state, id or clock. */
const R = {
  blocks: "reads a block or transaction of the fixture chain by its hash or contents (Kestrel's chain has its own)",
  state: "calls a contract or spends from an account that exists only in the fixture chain's genesis",
  signed: "a transaction signed for the fixture chain's id (0xc72dd9d5e883e); Kestrel's EIP-155 id is 9000",
  logs: "the fixture chain's logs; on Kestrel's chain the answer is [], which the spec's oneOf result schema refuses (an empty array matches both of its alternatives)",
  time: "absolute timestamps from the fixture chain's clock (its head is at 552 s); Kestrel's head carries the wall-clock time",
  chainId: "the contract returns CHAINID, which is the fixture chain's id in the reference answer",
  baseFee: "validation derives the next base fee from the fixture chain head's base fee (Kestrel's head has its own)",
  blockhash: 'BLOCKHASH of fixture-chain blocks',
  genesis: "the fixture chain's genesis is pre-merge (difficulty 0x20000); Kestrel is post-merge from block 0",
  blobs: 'Kestrel carries no blobs (blob transactions are refused, blobGasUsed stays 0)',
  schema:
    'the reference answer\'s error text ("out of gas") breaks the spec\'s own result schema ("^vm execution error.*"); Kestrel follows the schema',
  selfdestructLog:
    'left: ethereumjs reports no call frame for the ether SELFDESTRUCT moves, so traceTransfers does not log it',
  coinbase:
    "SELFDESTRUCT pays address 0: the fixture chain's coinbase (warm by EIP-3651) and an existing account there; on Kestrel it is cold and empty (+2,600, +25,000 gas)",
};

/** Fixtures that fail the schema mode on Kestrel's chain (skipped), with the reason. */
const SKIP: Record<string, string> = {
  'debug_getRawTransaction/get-tx.io': R.blocks,
  'debug_traceBlockByHash/trace-block-with-transactions.io': R.blocks,
  'debug_traceTransaction/trace-contract-call.io': R.blocks,
  'debug_traceTransaction/trace-legacy-transfer.io': R.blocks,
  'eth_call/call-callenv-options-eip1559.io': R.state,
  'eth_call/call-revert-abi-error.io': R.state,
  'eth_call/call-revert-abi-panic.io': R.state,
  'eth_createAccessList/create-al-contract-eip1559.io': R.state,
  'eth_createAccessList/create-al-contract.io': R.state,
  'eth_estimateGas/estimate-call-abi-error.io': R.state,
  'eth_estimateGas/estimate-failed-call.io': R.state,
  'eth_getBalance/get-balance-blockhash.io': R.blocks,
  'eth_getLogs/contract-addr.io': R.logs,
  'eth_getLogs/filter-with-blockHash-and-topics.io': R.blocks,
  'eth_getLogs/filter-with-blockHash.io': R.blocks,
  'eth_getLogs/topic-exact-match.io': R.logs,
  'eth_getLogs/topic-null-wildcard.io': R.logs,
  'eth_getLogs/topic-wildcard.io': R.logs,
  'eth_getProof/get-account-proof-blockhash.io': R.blocks,
  'eth_sendRawTransaction/send-access-list-transaction.io': R.signed,
  'eth_sendRawTransaction/send-blob-tx.io': R.blobs,
  'eth_sendRawTransaction/send-dynamic-fee-access-list-transaction.io': R.signed,
  'eth_sendRawTransaction/send-dynamic-fee-transaction.io': R.signed,
  'eth_sendRawTransaction/send-legacy-transaction.io': R.signed,
  'eth_simulateV1/ethSimulate-block-timestamps-incrementing.io': R.time,
  'eth_simulateV1/ethSimulate-blocknumber-increment.io': R.time,
  'eth_simulateV1/ethSimulate-use-as-many-features-as-possible.io': R.time,
};

/** Fixtures that pass the schema mode but whose reference answer carries fixture-chain values (no exact mode). */
const NOT_EXACT: Record<string, string> = {
  'eth_simulateV1/ethSimulate-add-more-non-defined-BlockStateCalls-than-fit-but-now-with-fit.io': R.chainId,
  'eth_simulateV1/ethSimulate-blobs.io': R.blobs,
  'eth_simulateV1/ethSimulate-block-override-reflected-in-contract-simple.io': R.time,
  'eth_simulateV1/ethSimulate-block-override-reflected-in-contract.io': R.time,
  'eth_simulateV1/ethSimulate-block-timestamp-auto-increment.io': R.time,
  'eth_simulateV1/ethSimulate-block-timestamp-non-increment.io': R.time,
  'eth_simulateV1/ethSimulate-block-timestamp-order-38021.io': R.time,
  'eth_simulateV1/ethSimulate-blockhash-complex.io': R.blockhash,
  'eth_simulateV1/ethSimulate-blockhash-simple.io': R.blockhash,
  'eth_simulateV1/ethSimulate-blockhash-start-before-head.io': R.blockhash,
  'eth_simulateV1/ethSimulate-contract-calls-itself.io': R.chainId,
  'eth_simulateV1/ethSimulate-empty-validation.io': R.baseFee,
  'eth_simulateV1/ethSimulate-empty-with-block-num-set-firstblock.io': R.genesis,
  'eth_simulateV1/ethSimulate-fee-recipient-receiving-funds.io': R.baseFee,
  'eth_simulateV1/ethSimulate-gas-fees-and-value-error-38014-with-validation.io': R.baseFee,
  'eth_simulateV1/ethSimulate-get-block-properties.io': R.chainId,
  'eth_simulateV1/ethSimulate-override-all-in-BlockStateCalls.io': R.time,
  'eth_simulateV1/ethSimulate-overwrite-existing-contract.io': R.chainId,
  'eth_simulateV1/ethSimulate-run-out-of-gas-in-block-38015.io': R.schema,
  'eth_simulateV1/ethSimulate-self-destructing-state-override.io': R.coinbase,
  'eth_simulateV1/ethSimulate-self-destructive-contract-produces-logs.io': R.coinbase,
  'eth_simulateV1/ethSimulate-simple-no-funds-with-validation-without-nonces.io': R.baseFee,
  'eth_simulateV1/ethSimulate-simple-no-funds-with-validation.io': R.baseFee,
  'eth_simulateV1/ethSimulate-simple-send-from-contract-with-validation.io': R.baseFee,
};

describe(
  'execution-apis fixtures (schema mode; exact mode for eth_simulateV1 and eth_createAccessList)',
  { timeout: 600_000 },
  () => {
    let node: KestrelNode;
    const report: string[] = [];
    before(async () => {
      // The fixture chain's head is block 0x36; the fixtures name blocks relative to it (log ranges, simulation
      // bases and numbers). Transfers, each sealed in its own block, give Kestrel's chain the same length (a fresh
      // dev chain already has block 1, sealed at genesis).
      node = await startNode({ home: fixtureLikeHome() });
      const coinbase = (await rpc(node.http, 'eth_coinbase', [])).result as string;
      const [sender, to] = nonCoinbaseAccounts(coinbase) as [DevAccount, DevAccount];
      const start = Number(BigInt((await rpc(node.http, 'eth_blockNumber', [])).result as string));
      for (let i = start; i < FIXTURE_HEAD; i++) {
        await sendTx(node.http, sender.privateKey, { to: to.address, value: 1n });
      }
      assert.equal(BigInt((await rpc(node.http, 'eth_blockNumber', [])).result as string), BigInt(FIXTURE_HEAD));
    });
    afterEach(printLogsOnFailure(() => node));
    after(async () => {
      for (const line of report) console.log(`# ${line}`);
      await node?.dispose();
    });

    for (const transport of ['http', 'ws'] as const) {
      it(`every served method's fixtures over ${transport}`, async () => {
        const ws = transport === 'ws' ? await WsRpc.connect(node.ws) : undefined;
        const call = async (method: string, params: unknown[]): Promise<RpcResponse> =>
          ws ? ws.request(method, params) : rpc(node.http, method, params);
        const failures: string[] = [];
        let passed = 0;
        let skipped = 0;
        let exactPassed = 0;
        try {
          for (const f of fixtures) {
            if (NOT_SERVED[f.method] !== undefined) continue;
            if (SKIP[f.name] !== undefined) {
              skipped++;
              continue;
            }
            const exact = EXACT.has(f.method) && !f.specOnly && NOT_EXACT[f.name] === undefined;
            const why = await replay(f, call, exact);
            if (why === undefined) passed++;
            else failures.push(`${f.name}: ${why}`);
            if (exact && why === undefined) exactPassed++;
          }
        } finally {
          await ws?.close();
        }
        const served = fixtures.filter((f) => NOT_SERVED[f.method] === undefined).length;
        report.push(
          `${transport}: ${fixtures.length} fixtures, ${served} of served methods: ${passed} passed (${exactPassed} of them also in exact mode), ` +
            `${skipped} need the fixture chain, ${failures.length} failed`,
        );
        for (const x of failures) report.push(`  FAIL ${x}`);
        assert.deepEqual(failures, []);
      });
    }
  },
);

/**
 * A dev home whose limits match the fixture chain's (geth's defaults): a 200M block gas limit and a 50M RPC gas cap,
 * so that default call gas and geth's "(supplied gas N)" texts come out the same.
 */
function fixtureLikeHome(): string {
  const home = join(mkdtempSync(join(tmpdir(), 'kestrel-xapi-')), 'home');
  execFileSync(process.execPath, [join(REPO_ROOT, 'bin', 'kestreld.js'), 'init', '--home', home, '--dev'], {
    stdio: 'ignore',
  });
  const genesisPath = join(home, 'config', 'genesis.json');
  const genesis = JSON.parse(readFileSync(genesisPath, 'utf8'));
  genesis.consensus_params.block.max_gas = '200000000';
  writeFileSync(genesisPath, JSON.stringify(genesis, null, 2));
  const tomlPath = join(home, 'config', 'app.toml');
  writeFileSync(tomlPath, readFileSync(tomlPath, 'utf8').replace(/^gas-cap = \d+/m, 'gas-cap = 50000000'));
  return home;
}

/** Methods whose chain-independent fixtures must also match the reference answer field by field. */
const EXACT = new Set(['eth_simulateV1', 'eth_createAccessList']);

/**
 * Fields of a simulated block that derive from the chain under it (its head's number, hash, time, coinbase and gas
 * limit, its state, its chain id inside every transaction hash): the fixture chain's values cannot be Kestrel's.
 */
const CHAIN_FIELDS = new Set([
  'number',
  'hash',
  'parentHash',
  'stateRoot',
  'receiptsRoot',
  'transactionsRoot',
  'timestamp',
  'miner',
  'gasLimit',
  'size',
  'transactions',
  'totalDifficulty',
]);
/** The same for logs: their block and transaction hashes and the block time. */
const CHAIN_LOG_FIELDS = new Set(['blockHash', 'blockNumber', 'blockTimestamp', 'transactionHash']);

/** The first difference between the reference answer and Kestrel's, ignoring chain-derived fields. */
function diff(want: unknown, got: unknown, path: string, skip: Set<string> = new Set()): string | undefined {
  if (Array.isArray(want)) {
    if (!Array.isArray(got)) return `${path}: want an array, got ${JSON.stringify(got)?.slice(0, 80)}`;
    if (want.length !== got.length) return `${path}: want ${want.length} items, got ${got.length}`;
    for (let i = 0; i < want.length; i++) {
      const d = diff(want[i], got[i], `${path}[${i}]`, skip);
      if (d) return d;
    }
    return undefined;
  }
  if (want !== null && typeof want === 'object') {
    if (got === null || typeof got !== 'object')
      return `${path}: want an object, got ${JSON.stringify(got)?.slice(0, 80)}`;
    const w = want as Record<string, unknown>;
    const g = got as Record<string, unknown>;
    for (const k of new Set([...Object.keys(w), ...Object.keys(g)])) {
      if (skip.has(k)) continue;
      const inner = k === 'logs' ? CHAIN_LOG_FIELDS : k === 'calls' ? new Set<string>() : skip;
      const d = diff(w[k], g[k], `${path}.${k}`, inner);
      if (d) return d;
    }
    return undefined;
  }
  return want === got ? undefined : `${path}: want ${JSON.stringify(want)}, got ${JSON.stringify(got)}`;
}

/** Replays a fixture; undefined when it passes (schema mode, plus exact mode for EXACT), else why not. */
async function replay(
  f: IoFixture,
  call: (m: string, p: unknown[]) => Promise<RpcResponse>,
  exact: boolean,
): Promise<string | undefined> {
  for (const ex of f.exchanges) {
    const res = await call(ex.request.method, ex.request.params ?? []);
    if (ex.response.error !== undefined) {
      if (res.error === undefined) return `expected error ${JSON.stringify(ex.response.error)}, got a result`;
      if (exact) {
        const d = diff(
          { code: ex.response.error.code, message: ex.response.error.message },
          { code: res.error.code, message: res.error.message },
          'error',
        );
        if (d) return `exact: ${d}`;
      }
      continue;
    }
    if (res.error !== undefined) return `expected a result, got ${JSON.stringify(res.error)}`;
    if (exact) {
      const d = diff(ex.response.result, res.result, 'result', CHAIN_FIELDS);
      if (d) return `exact: ${d}`;
    }
    if (!methodsWithSchema().includes(ex.request.method)) continue;
    try {
      assertConforms(ex.request.method, res.result);
    } catch (e) {
      return `schema: ${(e as Error).message.split('\n').slice(0, 3).join(' | ')}`;
    }
  }
  return undefined;
}
