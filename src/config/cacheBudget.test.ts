import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { homePaths, initHome } from '../node/home.ts';
import { cacheLimits, DEFAULT_CACHE_BUDGET_BYTES } from './cacheBudget.ts';
import { DEFAULT_CHAIN_ID, defaultAppToml } from './defaults.ts';
import { loadConfig } from './load.ts';

const MiB = 1024 * 1024;

describe('[cache] budget', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kestrel-cache-'));
  const home = join(dir, 'home');
  initHome(home, { chainId: DEFAULT_CHAIN_ID, dev: false });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('1 GiB by default; app.toml and --cache.budget-mb set it', () => {
    assert.equal(loadConfig(home, {}, DEFAULT_CHAIN_ID).cache.budgetBytes, DEFAULT_CACHE_BUDGET_BYTES);
    writeFileSync(homePaths(home).appToml, defaultAppToml().replace('budget-mb = 1024', 'budget-mb = 300'));
    assert.equal(loadConfig(home, {}, DEFAULT_CHAIN_ID).cache.budgetBytes, 300 * MiB);
    assert.equal(loadConfig(home, { 'cache.budget-mb': '128' }, DEFAULT_CHAIN_ID).cache.budgetBytes, 128 * MiB);
  });

  test('heap-growth-percent: 20 by default, 0 (V8 decides) to 1000', () => {
    assert.equal(loadConfig(home, {}, DEFAULT_CHAIN_ID).cache.heapGrowthPercent, 20);
    assert.equal(loadConfig(home, { 'cache.heap-growth-percent': '0' }, DEFAULT_CHAIN_ID).cache.heapGrowthPercent, 0);
    for (const bad of ['1001', '-1', 'x']) {
      assert.throws(
        () => loadConfig(home, { 'cache.heap-growth-percent': bad }, DEFAULT_CHAIN_ID),
        /cache\.heap-growth-percent/,
      );
    }
  });

  test('a budget below 64 MiB or not a whole number is refused with the key named', () => {
    for (const bad of ['63', '0', '-5', '1.5', 'lots']) {
      assert.throws(() => loadConfig(home, { 'cache.budget-mb': bad }, DEFAULT_CHAIN_ID), /cache\.budget-mb/, bad);
    }
  });

  test('the shares add up to at most the budget, each a positive whole number of bytes', () => {
    for (const budget of [64 * MiB, 1000 * MiB + 7, DEFAULT_CACHE_BUDGET_BYTES, 16 * 1024 * MiB]) {
      const limits = Object.values(cacheLimits(budget));
      assert.equal(limits.length, 12);
      for (const l of limits) assert.ok(Number.isSafeInteger(l) && l > 0, String(l));
      const sum = limits.reduce((a, b) => a + b, 0);
      assert.ok(sum <= budget && sum > budget - limits.length, `${sum} vs ${budget}`);
    }
    assert.equal(cacheLimits(DEFAULT_CACHE_BUDGET_BYTES).trie_nodes, Math.floor(DEFAULT_CACHE_BUDGET_BYTES / 4));
  });
});
