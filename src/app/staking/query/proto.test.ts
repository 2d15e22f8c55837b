// The staking, distribution and slashing .proto files in proto/ against cosmjs-types (generated from the Cosmos
// SDK's originals): every message has the SDK's field names, numbers and wire types. A message filled in every
// field by protobufjs from our file must survive a decode and re-encode by cosmjs-types byte for byte.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import * as coin from 'cosmjs-types/cosmos/base/v1beta1/coin';
import * as ed25519 from 'cosmjs-types/cosmos/crypto/ed25519/keys';
import * as distribution from 'cosmjs-types/cosmos/distribution/v1beta1/distribution';
import * as distributionQuery from 'cosmjs-types/cosmos/distribution/v1beta1/query';
import * as slashing from 'cosmjs-types/cosmos/slashing/v1beta1/slashing';
import * as slashingQuery from 'cosmjs-types/cosmos/slashing/v1beta1/query';
import * as staking from 'cosmjs-types/cosmos/staking/v1beta1/staking';
import * as stakingQuery from 'cosmjs-types/cosmos/staking/v1beta1/query';

type Codec = {
  encode(m: unknown): { finish(): Uint8Array };
  decode(b: Uint8Array): unknown;
  fromPartial(o: object): object;
};
const generated: Record<string, Array<Record<string, unknown>>> = {
  'cosmos.base.v1beta1': [coin],
  'cosmos.crypto.ed25519': [ed25519],
  'cosmos.staking.v1beta1': [staking, stakingQuery],
  'cosmos.distribution.v1beta1': [distribution, distributionQuery],
  'cosmos.slashing.v1beta1': [slashing, slashingQuery],
};

const root = new protobuf.Root();
const dir = fileURLToPath(new URL('../../../../proto/', import.meta.url));
root.resolvePath = (_origin, target) => (target.startsWith('google/') ? target : dir + target);
for (const f of ['staking', 'distribution', 'slashing']) root.loadSync(`cosmos/${f}/v1beta1/query.proto`);
root.loadSync('cosmos/crypto/ed25519/keys.proto');
root.resolveAll();

/** A value for every field (two items in repeated ones), nested messages filled in turn. */
function sample(t: protobuf.Type, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of t.fieldsArray) {
    const one = (i: number): unknown => {
      if (f.resolvedType instanceof protobuf.Type) return sample(f.resolvedType, depth + 1);
      if (f.resolvedType instanceof protobuf.Enum) return 1 + i;
      switch (f.type) {
        case 'string':
          return `${f.name}-${i}`;
        case 'bytes':
          return Uint8Array.of(f.id, i, 0xff);
        case 'bool':
          return true;
        default:
          return 1000 * f.id + i + 1;
      }
    };
    out[f.name] = f.repeated ? [one(0), one(1)] : one(0);
  }
  return out;
}

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

describe('proto/ staking, distribution, slashing vs cosmjs-types', () => {
  for (const [pkg, modules] of Object.entries(generated)) {
    const ns = root.lookup(pkg) as protobuf.Namespace;
    for (const t of ns.nestedArray.filter((n): n is protobuf.Type => n instanceof protobuf.Type)) {
      it(`${pkg}.${t.name}`, () => {
        const codec = modules.map((m) => m[t.name]).find((c) => c !== undefined) as Codec | undefined;
        assert.ok(codec, `${t.name} is not a message of ${pkg} in cosmjs-types`);
        assert.deepEqual(
          t.fieldsArray.map((f) => camel(f.name)).sort(),
          Object.keys(codec.fromPartial({})).sort(),
          'field names',
        );
        const ours = t.encode(sample(t)).finish();
        const theirs = codec.encode(codec.decode(ours)).finish();
        assert.equal(Buffer.from(theirs).toString('hex'), Buffer.from(ours).toString('hex'));
      });
    }
  }
});
