import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { BusyPoll } from './busyPoll.ts';

test('polls for the window after each touch, then lets the loop sleep', async () => {
  const poll = new BusyPoll(5_000);
  assert.equal(poll.polling, false);
  poll.touch();
  assert.equal(poll.polling, true);
  await sleep(2);
  poll.touch(); // a second answer inside the window extends it, without a second poller
  assert.equal(poll.polling, true);
  await sleep(30);
  assert.equal(poll.polling, false);
});

test('a zero window never polls, and stop() ends polling for good', async () => {
  const off = new BusyPoll(0);
  off.touch();
  assert.equal(off.polling, false);
  const poll = new BusyPoll(10_000_000);
  poll.touch();
  assert.equal(poll.polling, true);
  poll.stop();
  await sleep(2);
  assert.equal(poll.polling, false);
  poll.touch();
  assert.equal(poll.polling, false);
});
