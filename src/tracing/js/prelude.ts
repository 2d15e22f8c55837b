// The JavaScript that runs inside the sandbox before a user's tracer: geth's tracer API (log, db, ctx, frames,
// bigInt and the helper globals) built on a handful of host functions. It is evaluated once per sandbox as a
// function expression called with the host object; the host object stays in its closure and is removed from
// the global scope, so tracer code only sees the documented API.

/** Source of the sandbox prelude (an expression: a function taking the host bridge). */
export const PRELUDE = String.raw`(function (H) {
  'use strict';
  var G = globalThis;
  var OPS = [];

  function Big(v) { this.v = v; }
  function big(x, radix) {
    if (x instanceof Big) return x;
    if (typeof x === 'bigint') return new Big(x);
    if (typeof x === 'number') return new Big(BigInt(Math.trunc(x)));
    if (typeof x === 'string') {
      var s = x.trim(), neg = false;
      if (s[0] === '-') { neg = true; s = s.slice(1); }
      var v;
      if (radix === 16 || /^0x/i.test(s)) v = BigInt('0x' + (s.replace(/^0x/i, '') || '0'));
      else if (radix && radix !== 10) { v = 0n; for (var i = 0; i < s.length; i++) v = v * BigInt(radix) + BigInt(parseInt(s[i], radix)); }
      else v = BigInt(s || '0');
      return new Big(neg ? -v : v);
    }
    if (x === undefined || x === null) return new Big(0n);
    return new Big(BigInt(x));
  }
  var B = Big.prototype;
  function V(o) { return big(o).v; }
  B.add = B.plus = function (o) { return new Big(this.v + V(o)); };
  B.subtract = B.minus = function (o) { return new Big(this.v - V(o)); };
  B.multiply = B.times = function (o) { return new Big(this.v * V(o)); };
  B.divide = B.over = function (o) { return new Big(this.v / V(o)); };
  B.mod = B.remainder = function (o) { return new Big(this.v % V(o)); };
  B.pow = function (o) { return new Big(this.v ** V(o)); };
  B.and = function (o) { return new Big(this.v & V(o)); };
  B.or = function (o) { return new Big(this.v | V(o)); };
  B.xor = function (o) { return new Big(this.v ^ V(o)); };
  B.not = function () { return new Big(~this.v); };
  B.shiftLeft = function (n) { return new Big(this.v << BigInt(n)); };
  B.shiftRight = function (n) { return new Big(this.v >> BigInt(n)); };
  B.negate = function () { return new Big(-this.v); };
  B.abs = function () { return new Big(this.v < 0n ? -this.v : this.v); };
  B.compare = B.compareTo = function (o) { var w = V(o); return this.v === w ? 0 : this.v > w ? 1 : -1; };
  B.equals = B.eq = function (o) { return this.v === V(o); };
  B.notEquals = B.neq = function (o) { return this.v !== V(o); };
  B.greater = B.gt = function (o) { return this.v > V(o); };
  B.greaterOrEquals = B.geq = function (o) { return this.v >= V(o); };
  B.lesser = B.lt = function (o) { return this.v < V(o); };
  B.lesserOrEquals = B.leq = function (o) { return this.v <= V(o); };
  B.isZero = function () { return this.v === 0n; };
  B.isNegative = function () { return this.v < 0n; };
  B.isPositive = function () { return this.v > 0n; };
  B.isEven = function () { return (this.v & 1n) === 0n; };
  B.isOdd = function () { return (this.v & 1n) === 1n; };
  B.toString = function (radix) { return this.v.toString(radix || 10); };
  B.toJSNumber = B.valueOf = function () { return Number(this.v); };
  B.toJSON = function () { return this.v.toString(); };
  G.bigInt = big;

  function hexOf(bytes) {
    var s = '';
    for (var i = 0; i < bytes.length; i++) s += (bytes[i] < 16 ? '0' : '') + (bytes[i] & 255).toString(16);
    return s;
  }
  function bytesOf(hex) {
    hex = String(hex).replace(/^0x/i, '');
    if (hex.length % 2) hex = '0' + hex;
    var out = new Uint8Array(hex.length / 2);
    for (var i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(2 * i, 2), 16);
    return out;
  }
  function fixed(x, n) {
    var b = typeof x === 'string' ? bytesOf(x) : x instanceof Big ? bytesOf(x.v.toString(16)) : new Uint8Array(x);
    var out = new Uint8Array(n);
    if (b.length >= n) out.set(b.subarray(b.length - n)); else out.set(b, n - b.length);
    return out;
  }
  function addrHex(x) { return hexOf(fixed(x, 20)); }
  function buf(ab) { return new Uint8Array(ab); }

  G.toHex = function (x) { return '0x' + hexOf(typeof x === 'string' ? bytesOf(x) : x); };
  G.toWord = function (x) { return fixed(x, 32); };
  G.toAddress = function (x) { return fixed(x, 20); };
  G.toContract = function (from, nonce) { return bytesOf(H.toContract(addrHex(from), Number(nonce))); };
  G.toContract2 = function (from, salt, code) {
    return bytesOf(H.toContract2(addrHex(from), hexOf(fixed(salt, 32)), hexOf(typeof code === 'string' ? bytesOf(code) : code)));
  };
  G.isPrecompiled = function (a) { return H.isPrecompiled(addrHex(a)); };
  G.slice = function (b, start, end) {
    if (start < 0 || start > end || end > b.length) {
      throw new Error('tracer accessed out of bound memory: available ' + b.length + ', offset ' + start + ', size ' + (end - start));
    }
    return b.slice(start, end);
  };

  var cur = { op: 0, err: undefined };
  var op = {
    toNumber: function () { return cur.op; },
    toString: function () { return OPS[cur.op] || (OPS[cur.op] = H.opName()); },
    isPush: function () { return cur.op >= 0x5f && cur.op <= 0x7f; },
  };
  var log = {
    op: op,
    stack: {
      peek: function (i) { return new Big(H.peek(i)); },
      length: function () { return H.stackLength(); },
    },
    memory: {
      slice: function (a, b) { return buf(H.memory(Number(a), Number(b))); },
      getUint: function (a) { return new Big(H.memoryWord(Number(a))); },
      length: function () { return H.memoryLength(); },
    },
    contract: {
      getAddress: function () { return bytesOf(H.address()); },
      getCaller: function () { return bytesOf(H.caller()); },
      getValue: function () { return new Big(H.value()); },
      getInput: function () { return bytesOf(H.input()); },
    },
    getPC: function () { return H.pc(); },
    getGas: function () { return H.gas(); },
    getCost: function () { return H.cost(); },
    getDepth: function () { return H.depth(); },
    getRefund: function () { return H.refund(); },
    getError: function () { return cur.err; },
  };
  var db = {
    getBalance: function (a) { return new Big(H.balance(addrHex(a))); },
    getNonce: function (a) { return H.nonce(addrHex(a)); },
    getCode: function (a) { return bytesOf(H.code(addrHex(a))); },
    getState: function (a, slot) { return bytesOf(H.state(addrHex(a), hexOf(fixed(slot, 32)))); },
    exists: function (a) { return H.exists(addrHex(a)); },
  };

  var T;
  G.__install = function (t) {
    if (t === null || typeof t !== 'object') throw new Error('trace object must be an object');
    if (typeof t.result !== 'function') throw new Error('trace object must expose a function result()');
    if (typeof t.fault !== 'function') throw new Error('trace object must expose a function fault()');
    if ((typeof t.enter === 'function') !== (typeof t.exit === 'function')) {
      throw new Error('trace object must expose either both or none of enter() and exit()');
    }
    T = t;
    return (typeof t.step === 'function' ? 1 : 0) | (typeof t.enter === 'function' ? 2 : 0);
  };
  G.__setup = function (cfg) { if (typeof T.setup === 'function') T.setup(cfg); };
  G.__step = function (o) { cur.op = o; cur.err = undefined; T.step(log, db); };
  G.__fault = function (o, e) { cur.op = o; cur.err = e; T.fault(log, db); };
  function frame(f) {
    return {
      getType: function () { return f.type; },
      getFrom: function () { return bytesOf(f.from); },
      getTo: function () { return bytesOf(f.to); },
      getInput: function () { return bytesOf(f.input); },
      getGas: function () { return f.gas; },
      getValue: function () { return f.value === undefined ? undefined : big(f.value); },
    };
  }
  G.__enter = function (json) { T.enter(frame(JSON.parse(json))); };
  G.__exit = function (json) {
    var r = JSON.parse(json);
    T.exit({
      getGasUsed: function () { return r.gasUsed; },
      getOutput: function () { return bytesOf(r.output); },
      getError: function () { return r.error; },
    });
  };
  G.__result = function (json) {
    var c = JSON.parse(json);
    var ctx = {
      type: c.type, from: bytesOf(c.from), input: bytesOf(c.input), gas: c.gas, gasPrice: c.gasPrice,
      value: big(c.value), block: c.block, output: bytesOf(c.output), gasUsed: c.gasUsed, time: c.time,
      intrinsicGas: c.intrinsicGas,
    };
    if (c.to !== undefined) ctx.to = bytesOf(c.to);
    if (c.error !== undefined) ctx.error = c.error;
    if (c.blockHash !== undefined) { ctx.blockHash = bytesOf(c.blockHash); ctx.txIndex = c.txIndex; ctx.txHash = bytesOf(c.txHash); }
    var out = JSON.stringify(T.result(ctx, db));
    return out === undefined ? 'null' : out;
  };
})`;
