// The gRPC services are declared without parsing proto/ at startup: their written-out methods must match the .proto.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BANK_QUERY_METHODS, BANK_QUERY_SERVICE } from './bankQuery.ts';
import { loadProto } from './reflection.ts';
import { rawService } from './server.ts';

describe('gRPC service definitions', () => {
  it('cosmos.bank.v1beta1.Query has the methods (paths, unary) query.proto declares', () => {
    const fromProto = loadProto('cosmos/bank/v1beta1/query.proto')[BANK_QUERY_SERVICE] as Record<
      string,
      { path: string; requestStream: boolean; responseStream: boolean }
    >;
    const written = rawService(BANK_QUERY_SERVICE, BANK_QUERY_METHODS);
    const shape = (def: Record<string, { path: string; requestStream: boolean; responseStream: boolean }>) =>
      Object.values(def)
        .map((m) => `${m.path} ${m.requestStream} ${m.responseStream}`)
        .sort();
    assert.deepEqual(shape(written), shape(fromProto));
  });
});
