import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseTransport } from './transport.ts';
import { loadUws } from './uws.ts';

describe('chooseTransport', () => {
  const loads = loadUws().ok;

  it('node when asked, whatever is installed', () => {
    const c = chooseTransport('node', { connectionCap: true });
    assert.equal(c.kind, 'node');
    assert.match(c.reason, /json-rpc.transport = node/);
  });

  it('auto takes uWebSockets.js where its binary loads, node:http with the reason elsewhere', () => {
    const c = chooseTransport('auto', { connectionCap: false });
    if (loads) {
      assert.equal(c.kind, 'uws');
      assert.match(c.reason, new RegExp(`uws_${process.platform}_${process.arch}_${process.versions.modules}\\.node`));
    } else {
      assert.equal(c.kind, 'node');
      assert.match(c.reason, /because uWebSockets\.js .* (has no binary|does not load)/);
    }
  });

  it('uws when asked is an error where the binary does not load', () => {
    if (loads) assert.equal(chooseTransport('uws', { connectionCap: false }).kind, 'uws');
    else assert.throws(() => chooseTransport('uws', { connectionCap: false }), /json-rpc.transport = uws, but/);
  });
});
