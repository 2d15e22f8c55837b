// The default precompile maps built before the pairing curves' libraries (initPrecompileMaps, what a fresh chain's
// first block needs): the same map objects serve 0x06–0x08 and 0x0b–0x11 once initPrecompiles() completed, and a
// call that reaches them earlier fails loudly instead of answering wrong. Its own file: the default set is
// process-wide, and this test needs it untouched by other tests.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { initPrecompileMaps, initPrecompiles, precompilesComplete, precompilesFor } from './index.ts';

const word = (hex: string) => Buffer.from(hex.padStart(64, '0'), 'hex');
// G1's generator (1, 2) twice, and 2·G, on alt_bn128.
const G = Buffer.concat([word('1'), word('2')]);
const TWO_G = Buffer.concat([
  word('030644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd3'),
  word('15ed738c0e0a7c92e7845f96b2ae9c0a68a6a449e3538fc7ff3ebf7a5a18a2c4'),
]);

test('the maps exist before the curve libraries; their curve precompiles run once initPrecompiles completed', async () => {
  await initPrecompileMaps();
  assert.equal(precompilesComplete(), false);
  const prague = precompilesFor('Prague');
  assert.equal(prague.size, 17);
  const add = prague.get(0x06n)!;
  assert.ok(add.stateful === undefined);
  // Gas needs no library; running does.
  assert.equal(add.gas(Buffer.concat([G, G]), 'Prague'), 150n);
  assert.throws(() => add.run(Buffer.concat([G, G]), 'Prague'), /before initPrecompiles\(\) completed/);
  assert.throws(() => (prague.get(0x0bn) as typeof add).run(new Uint8Array(256), 'Prague'), /before initPrecompiles/);
  // The precompiles that need no curve library already run: SHA-256 of nothing.
  assert.equal(
    Buffer.from((prague.get(0x02n) as typeof add).run(new Uint8Array(0), 'Prague')!).toString('hex'),
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  );

  await initPrecompiles();
  assert.equal(precompilesComplete(), true);
  assert.equal(precompilesFor('Prague'), prague, 'the same maps, now complete');
  assert.deepEqual(Buffer.from(add.run(Buffer.concat([G, G]), 'Prague')!), TWO_G);
  // BLS12-381 G1ADD of two points at infinity is the point at infinity.
  assert.deepEqual(
    Buffer.from((prague.get(0x0bn) as typeof add).run(new Uint8Array(256), 'Prague')!),
    Buffer.alloc(128),
  );
});
