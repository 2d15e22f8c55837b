// The structured logger: both formats carry level, time and module; levels filter; secrets never reach a line.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { moduleOf } from './console.ts';
import { errorText, lineLogger, LogSink, parseLogFormat, parseLogLevel } from './logger.ts';

const at = () => new Date('2026-01-02T03:04:05.678Z');

describe('LogSink', () => {
  it('writes JSON lines with level, time, module, msg and fields; text lines with the same facts', () => {
    const lines: string[] = [];
    const sink = new LogSink('info', 'json', (l) => lines.push(l), at);
    sink.logger('abci').info('committed block', { height: 5n, txs: 2 });
    sink.logger('abci').debug('not shown');
    assert.deepEqual(
      lines.map((l) => JSON.parse(l)),
      [
        {
          level: 'info',
          time: '2026-01-02T03:04:05.678Z',
          module: 'abci',
          msg: 'committed block',
          height: '5',
          txs: 2,
        },
      ],
    );
    sink.format = 'text';
    sink.setLevel('debug');
    sink.logger('rpc').debug('two\nlines', { method: 'eth_call', why: 'a b' });
    assert.equal(lines[1], '2026-01-02T03:04:05.678Z DEBUG [rpc] two\n    lines method=eth_call why="a b"\n');
    sink.setLevel('error');
    sink.logger('rpc').warn('hidden');
    assert.equal(lines.length, 2);
  });

  it('redacts registered secrets anywhere in a line, and the values of secret-named fields', () => {
    const lines: string[] = [];
    const sink = new LogSink('debug', 'json', (l) => lines.push(l), at);
    const token = 'ab'.repeat(32);
    sink.redact(token);
    sink.redact('0x' + 'cd'.repeat(32));
    const log = sink.logger('node');
    log.info(`token is ${token.toUpperCase()} and key 0x${'CD'.repeat(32)}`, {
      passphrase: 'hunter2',
      authToken: 'x',
      note: `Bearer ${token}`,
    });
    const text = lines.join('');
    assert.ok(
      !text.toLowerCase().includes(token) && !text.toLowerCase().includes('cd'.repeat(32)) && !text.includes('hunter2'),
      text,
    );
    assert.equal(JSON.parse(lines[0]!).passphrase, '[REDACTED]');
    assert.equal(JSON.parse(lines[0]!).authToken, '[REDACTED]');
  });

  it('parses levels and formats; routes prefixed console lines to their module; warning lines at warn', () => {
    assert.equal(parseLogLevel('WARN'), 'warn');
    assert.throws(() => parseLogLevel('loud'), /invalid log level "loud"/);
    assert.equal(parseLogFormat('json'), 'json');
    assert.throws(() => parseLogFormat('xml'), /invalid log format/);
    assert.equal(moduleOf('txpool: evicting 0x12', 'node'), 'txpool');
    assert.equal(moduleOf('miner_setGasPrice: app.toml …', 'node'), 'miner');
    assert.equal(moduleOf('kestreld started', 'node'), 'node');
    const lines: string[] = [];
    const to = lineLogger(new LogSink('info', 'json', (l) => lines.push(l), at).logger('abci'));
    to('warning: validator X has no fee recipient');
    to('abci: discarded');
    assert.deepEqual(
      lines.map((l) => JSON.parse(l).level),
      ['warn', 'info'],
    );
  });
});

describe('errorText', () => {
  it("is an Error's stack, its name and message without one, and any other thrown value as text", () => {
    const withStack = new TypeError('bad input');
    assert.equal(errorText(withStack), withStack.stack);
    assert.match(errorText(withStack), /^TypeError: bad input\n\s+at /);
    const bare = new RangeError('too far');
    bare.stack = undefined;
    assert.equal(errorText(bare), 'RangeError: too far');
    assert.equal(errorText('plain text'), 'plain text');
    assert.equal(errorText(42n), '42');
    assert.equal(errorText(null), 'null');
    assert.equal(errorText(Object.create(null)), 'unprintable value');
  });
});
