import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Semaphore } from './semaphore.ts';

describe('Semaphore', () => {
  it('runs at most `slots` at once, the rest in arrival order, and refuses beyond the queue bound', async () => {
    const sem = new Semaphore(1, 2, () => new Error('full'));
    const order = [] as string[];
    let release!: () => void;
    const first = sem.run(() => new Promise<void>((res) => (release = res)).then(() => void order.push('a')));
    const second = sem.run(async () => void order.push('b'));
    const third = sem.run(async () => void order.push('c'));
    await assert.rejects(
      sem.run(async () => void order.push('d')),
      /full/,
    );
    assert.deepEqual([...order], []);
    release();
    await Promise.all([first, second, third]);
    assert.deepEqual([...order], ['a', 'b', 'c']);
    // The slot is free again once the queue drained.
    await sem.run(async () => void order.push('e'));
    assert.deepEqual([...order], ['a', 'b', 'c', 'e']);
  });
});
