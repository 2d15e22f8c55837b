// gRPC against a real kestreld with @grpc/grpc-js: reflection that strict clients can link for every query service
// (every file's dependencies named, as grpcurl needs), the height metadata, and gRPC status codes for bad input.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { bech32 } from 'bech32';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { bankClient, type BankClient } from '../helpers/cosmos.ts';
import { type KestrelNode, printLogsOnFailure, REPO_ROOT, rpcResult, startNode } from '../helpers/node.ts';

const require = createRequire(import.meta.url);
const { FileDescriptorProto } = require('protobufjs/ext/descriptor') as {
  FileDescriptorProto: { decode(b: Uint8Array): any };
};
const alice = bech32.encode('kestrel', bech32.toWords(Buffer.from(DEV_ACCOUNTS[0]!.address.slice(2), 'hex')));

/** One request/response on the v1 (or v1alpha) ServerReflectionInfo stream. */
async function reflect(address: string, version: 'v1' | 'v1alpha', req: object): Promise<any> {
  const file = join(
    REPO_ROOT,
    'node_modules/@grpc/reflection/build/proto/grpc/reflection',
    version,
    'reflection.proto',
  );
  const pkg = grpc.loadPackageDefinition(
    protoLoader.loadSync(file, { keepCase: true, longs: String, defaults: true }),
  ) as any;
  const client = new pkg.grpc.reflection[version].ServerReflection(address, grpc.credentials.createInsecure());
  try {
    return await new Promise((res, rej) => {
      const stream = client.ServerReflectionInfo();
      stream.on('data', (m: any) => {
        res(m);
        stream.end();
      });
      stream.on('error', rej);
      stream.write(req);
    });
  } finally {
    client.close();
  }
}

describe('gRPC cosmos.bank.v1beta1.Query', { timeout: 90_000 }, () => {
  let node: KestrelNode;
  let client: BankClient;
  afterEach(printLogsOnFailure(() => node));
  before(async () => {
    node = await startNode();
    client = bankClient(node.grpc);
  });
  after(async () => {
    client?.close();
    await node?.dispose();
  });

  const services: Array<[string, string[]]> = [
    ['cosmos.bank.v1beta1.Query', ['AllBalances', 'Balance', 'SpendableBalances', 'SupplyOf', 'TotalSupply']],
    ['cosmos.staking.v1beta1.Query', ['Delegation', 'Params', 'Pool', 'Validator', 'Validators']],
    ['cosmos.distribution.v1beta1.Query', ['CommunityPool', 'DelegationRewards', 'Params', 'ValidatorCommission']],
    ['cosmos.slashing.v1beta1.Query', ['Params', 'SigningInfo', 'SigningInfos']],
  ];
  for (const version of ['v1', 'v1alpha'] as const) {
    for (const [service, someMethods] of services)
      it(`reflection ${version} lists ${service} and serves linkable descriptors`, async () => {
        const list = await reflect(node.grpc, version, { list_services: '' });
        assert.ok(list.list_services_response.service.some((s: any) => s.name === service));
        const first = await reflect(node.grpc, version, { file_containing_symbol: service });
        // Resolve every file the way grpcurl does: follow `dependency` names only.
        const files = new Map<string, any>();
        const queue = first.file_descriptor_response.file_descriptor_proto.map((b: Buffer) =>
          FileDescriptorProto.decode(b),
        );
        while (queue.length) {
          const f = queue.shift();
          if (files.has(f.name)) continue;
          files.set(f.name, f);
          for (const dep of f.dependency ?? []) {
            if (files.has(dep)) continue;
            const r = await reflect(node.grpc, version, { file_by_filename: dep });
            assert.ok(r.file_descriptor_response, `file ${dep} not served: ${JSON.stringify(r.error_response)}`);
            queue.push(
              ...r.file_descriptor_response.file_descriptor_proto.map((b: Buffer) => FileDescriptorProto.decode(b)),
            );
          }
        }
        // Strict linking: every referenced type is defined in the file itself or in one it names as a dependency.
        // Messages and enums (a staking Validator's status is an enum).
        const defines = (f: any) =>
          new Set([...(f.messageType ?? []), ...(f.enumType ?? [])].map((m: any) => `.${f.package}.${m.name}`));
        for (const f of files.values()) {
          const visible = new Set([
            ...defines(f),
            ...(f.dependency ?? []).flatMap((d: string) => [...defines(files.get(d))]),
          ]);
          // Relative names resolve outward from the file's package, as protobuf scoping does.
          const resolves = (name: string) => {
            if (name.startsWith('.')) return visible.has(name);
            const scope = String(f.package).split('.');
            for (let i = scope.length; i >= 0; i--)
              if (visible.has(`.${[...scope.slice(0, i), name].join('.')}`)) return true;
            return false;
          };
          for (const m of f.messageType ?? []) {
            for (const field of m.field ?? [])
              if (field.typeName) assert.ok(resolves(field.typeName), `${f.name}: ${field.typeName} not imported`);
          }
          for (const s of f.service ?? [])
            for (const m of s.method)
              assert.ok(resolves(m.inputType) && resolves(m.outputType), `${f.name}: ${m.name}`);
        }
        const own = [...files.values()].find((f) =>
          (f.service ?? []).some((x: any) => `${f.package}.${x.name}` === service),
        );
        const methods = own.service[0].method.map((m: any) => m.name);
        for (const m of someMethods) assert.ok(methods.includes(m), `${service}/${m}`);
      });
  }

  it("reflection resolves the type a validator's consensus_pubkey Any names (grpcurl prints it as JSON)", async () => {
    const r = await reflect(node.grpc, 'v1', { file_containing_symbol: 'cosmos.crypto.ed25519.PubKey' });
    const f = FileDescriptorProto.decode(r.file_descriptor_response.file_descriptor_proto[0]);
    assert.equal(f.package, 'cosmos.crypto.ed25519');
    assert.deepEqual(
      f.messageType.map((m: any) => m.name),
      ['PubKey'],
    );
  });

  it('echoes the height metadata; 0 and absent mean the head', async () => {
    const head = Number(await rpcResult(node.http, 'eth_blockNumber'));
    assert.equal((await client.call('AllBalances', { address: alice })).height, String(head));
    assert.equal((await client.call('AllBalances', { address: alice }, 0)).height, String(head));
    assert.equal((await client.call('AllBalances', { address: alice }, head)).height, String(head));
    const spendable = await client.call('SpendableBalances', { address: alice });
    assert.deepEqual(
      spendable.res.balances.map((c: any) => c.denom),
      ['akestrel', 'stake'],
    );
  });

  const bad: Array<[string, string, object, number | string | undefined, number, RegExp]> = [
    [
      'malformed bech32',
      'AllBalances',
      { address: 'kestrel1notanaddress' },
      undefined,
      grpc.status.INVALID_ARGUMENT,
      /^invalid address: decoding bech32 failed/,
    ],
    [
      'bad checksum',
      'AllBalances',
      { address: alice.slice(0, -1) + (alice.endsWith('q') ? 'p' : 'q') },
      undefined,
      grpc.status.INVALID_ARGUMENT,
      /invalid checksum \(expected \w{6} got \w{6}\)/,
    ],
    [
      'wrong prefix',
      'AllBalances',
      { address: bech32.encode('cosmos', bech32.toWords(new Uint8Array(20))) },
      undefined,
      grpc.status.INVALID_ARGUMENT,
      /invalid Bech32 prefix; expected kestrel, got cosmos/,
    ],
    [
      'empty address',
      'Balance',
      { address: '', denom: 'stake' },
      undefined,
      grpc.status.INVALID_ARGUMENT,
      /empty address string is not allowed/,
    ],
    [
      'invalid denom',
      'Balance',
      { address: alice, denom: '1x' },
      undefined,
      grpc.status.INVALID_ARGUMENT,
      /^invalid denom: 1x$/,
    ],
    ['invalid SupplyOf denom', 'SupplyOf', { denom: '' }, undefined, grpc.status.INVALID_ARGUMENT, /^invalid denom: $/],
    [
      'negative height',
      'AllBalances',
      { address: alice },
      -1,
      grpc.status.INVALID_ARGUMENT,
      /cannot query with height < 0/,
    ],
    [
      'garbage height',
      'AllBalances',
      { address: alice },
      'abc',
      grpc.status.INVALID_ARGUMENT,
      /invalid height header "abc"/,
    ],
    [
      'future height',
      'AllBalances',
      { address: alice },
      1_000_000,
      grpc.status.NOT_FOUND,
      /height 1000000 must be less than or equal to the current blockchain height \d+/,
    ],
  ];
  for (const [name, method, req, height, code, details] of bad) {
    it(`answers ${name} with ${grpc.status[code]}`, async () => {
      await assert.rejects(client.call(method, req, height), (e: grpc.ServiceError) => {
        assert.equal(e.code, code, e.details);
        assert.match(e.details, details);
        return true;
      });
    });
  }
});
