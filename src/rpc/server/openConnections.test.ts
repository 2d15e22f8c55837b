import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countOpenConnections, ListenGate } from './openConnections.ts';

const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:2161 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1 1 0000000000000000 100 0 0 10 0
   1: 0100007F:2161 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000  1000        0 2 1 0000000000000000 20 4 30 10 -1
   2: 0100007F:2161 0100007F:D2F2 08 00000000:00000000 00:00000000 00000000  1000        0 3 1 0000000000000000 20 4 30 10 -1
   3: 0100007F:2161 0100007F:D2F4 06 00000000:00000000 03:00000F9E 00000000     0        0 0 3 0000000000000000
   4: 0100007F:D2F6 0100007F:2161 01 00000000:00000000 00:00000000 00000000  1000        0 4 1 0000000000000000 20 4 30 10 -1
   5: 0100007F:2162 0100007F:D2F8 01 00000000:00000000 00:00000000 00000000  1000        0 5 1 0000000000000000 20 4 30 10 -1
`;
const TCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:2161 00000000000000000000000001000000:E000 01 00000000:00000000 00:00000000 00000000  1000        0 6 1 0000000000000000 20 4 30 10 -1
`;

describe('countOpenConnections', () => {
  it("counts the port's established and close-wait server sockets, not its listener, TIME_WAIT or client sockets", () => {
    // port 0x2161 = 8545: two open in tcp (ESTABLISHED, CLOSE_WAIT), one in tcp6
    assert.equal(countOpenConnections([TCP, TCP6], 8545), 3);
    assert.equal(countOpenConnections([TCP], 8546), 1);
    assert.equal(countOpenConnections([''], 8545), 0);
  });

  it('a cap of 0 never pauses the listener', () => {
    let paused = 0;
    const gate = new ListenGate(0, { pause: () => paused++, resume: async () => true }, () => {});
    gate.start(8545);
    gate.stop();
    assert.equal(paused, 0);
  });
});
