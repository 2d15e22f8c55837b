import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { corsAllowOrigin, isAuthorized, wsOriginAllowed } from './auth.ts';

describe('isAuthorized', () => {
  it('accepts only Bearer <token> with the exact token', () => {
    assert.equal(isAuthorized('Bearer abc', 'abc'), true);
    assert.equal(isAuthorized('BEARER   abc ', 'abc'), true);
    assert.equal(isAuthorized('Bearer abd', 'abc'), false);
    assert.equal(isAuthorized('Bearer abcd', 'abc'), false);
    assert.equal(isAuthorized('Bearer ab', 'abc'), false);
    assert.equal(isAuthorized('abc', 'abc'), false);
    assert.equal(isAuthorized('Bearer abc extra', 'abc'), false);
    assert.equal(isAuthorized(undefined, 'abc'), false);
    assert.equal(isAuthorized(['Bearer abc'], 'abc'), false);
  });

  it('never authorizes when no token is configured', () => {
    assert.equal(isAuthorized('Bearer abc', undefined), false);
    assert.equal(isAuthorized('Bearer ', ''), false);
    assert.equal(isAuthorized('Bearer', ''), false);
  });
});

describe('corsAllowOrigin', () => {
  it('is silent when CORS is off or the origin is absent or unlisted', () => {
    assert.equal(corsAllowOrigin('https://a.example', []), undefined);
    assert.equal(corsAllowOrigin(undefined, ['*']), undefined);
    assert.equal(corsAllowOrigin('https://b.example', ['https://a.example']), undefined);
  });

  it('answers * for a wildcard and echoes a listed origin', () => {
    assert.equal(corsAllowOrigin('https://a.example', ['*']), '*');
    assert.equal(corsAllowOrigin('https://A.example', ['https://a.example']), 'https://A.example');
  });
});

describe('wsOriginAllowed', () => {
  it('lets non-browser clients (no Origin) through', () => {
    assert.equal(wsOriginAllowed(undefined, undefined), true);
    assert.equal(wsOriginAllowed(undefined, ['https://a.example']), true);
  });

  it('defaults to local pages only', () => {
    assert.equal(wsOriginAllowed('http://localhost:8080', undefined), true);
    assert.equal(wsOriginAllowed('http://127.0.0.1', []), true);
    assert.equal(wsOriginAllowed('http://[::1]:3000', []), true);
    assert.equal(wsOriginAllowed('https://evil.example', []), false);
    assert.equal(wsOriginAllowed('null', []), false);
  });

  it('honours configured origins and the wildcard', () => {
    assert.equal(wsOriginAllowed('https://a.example', ['https://a.example']), true);
    assert.equal(wsOriginAllowed('http://localhost', ['https://a.example']), false);
    assert.equal(wsOriginAllowed('https://evil.example', ['*']), true);
  });
});
