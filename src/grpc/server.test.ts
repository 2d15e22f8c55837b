// The gRPC services are declared without parsing proto/ at startup: their written-out methods must match the .proto,
// and the app's query modules must answer every one of them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { distributionQueries } from '../app/staking/query/distribution.ts';
import { slashingQueries } from '../app/staking/query/slashing.ts';
import { stakingQueries } from '../app/staking/query/staking.ts';
import { COSMOS_QUERY_SERVICES } from './query.ts';
import { loadProto } from './reflection.ts';
import { rawService } from './server.ts';

type Def = Record<string, { path: string; requestStream: boolean; responseStream: boolean }>;
const shape = (def: Def) =>
  Object.values(def)
    .map((m) => `${m.path} ${m.requestStream} ${m.responseStream}`)
    .sort();

describe('gRPC service definitions', () => {
  for (const s of COSMOS_QUERY_SERVICES) {
    it(`${s.name} has the methods (paths, unary) ${s.file} declares`, () => {
      const fromProto = loadProto(s.file)[s.name] as Def;
      assert.deepEqual(shape(rawService(s.name, s.methods)), shape(fromProto));
    });
  }

  it('the staking, distribution and slashing query modules answer exactly the served methods', () => {
    const none = () => {
      throw new Error('not called');
    };
    for (const q of [stakingQueries(none, 'x'), distributionQueries(none, 'x'), slashingQueries(none, 'x')]) {
      const served = COSMOS_QUERY_SERVICES.find((s) => q.prefix === `/${s.name}/`);
      assert.ok(served, q.prefix);
      assert.deepEqual([...q.methods()].sort(), [...served.methods].sort());
    }
  });
});
