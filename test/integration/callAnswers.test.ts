// eth_call, eth_estimateGas and eth_createAccessList moved from @ethereumjs/vm to Kestrel's engine; these answers
// were recorded from the ethereumjs path and must not change: the texts clients match on, the unpriced sender's
// credit, access lists that keep what reverted frames touched, and gas estimates.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEV_ACCOUNTS } from '../helpers/accounts.ts';
import { type KestrelNode, rpc, rpcResult, startNode } from '../helpers/node.ts';
import { sendTx } from '../helpers/tx.ts';

// Runtime: no calldata → SSTORE(1, 1), SLOAD(2), BALANCE(0xbeef), STOP; calldata → REVERT with Error("nope").
const NOPE =
  '08c379a0' + '20'.padStart(64, '0') + '4'.padStart(64, '0') + Buffer.from('nope').toString('hex').padEnd(64, '0');
const RUNTIME =
  '36601357' + '6001600155' + '60025450' + '61beef3150' + '00' + '5b' + '60646020600039' + '60646000fd' + NOPE;
const INIT = '0x6084600c60003960846000f3' + RUNTIME;
const EMPTY = '0x' + '00'.repeat(19) + '77';
const word = (hex: string, i: number): string => hex.slice(2 + 64 * i, 2 + 64 * (i + 1));

describe('call answers kept from the ethereumjs path', { timeout: 120_000 }, () => {
  let node: KestrelNode;
  let c: string;
  const call = (method: string, params: unknown[]) => rpc(node.http, method, params);

  before(async () => {
    node = await startNode();
    const { receipt } = await sendTx(node.http, DEV_ACCOUNTS[1]!.privateKey, { to: null, data: INIT, gas: 300_000n });
    assert.equal(receipt.status, '0x1');
    c = receipt.contractAddress;
  });
  after(async () => node?.dispose());

  it('reverts, failures and refusals keep their texts', async () => {
    const reverted = await call('eth_call', [{ to: c, data: '0x01' }, 'latest']);
    assert.deepEqual(reverted.error, { code: 3, message: 'execution reverted: nope', data: '0x' + NOPE });
    assert.equal((await call('eth_call', [{ to: c, gas: '0x5208' }, 'latest'])).error?.message, 'out of gas');
    assert.equal(
      (await call('eth_call', [{ to: c, gas: '0x100' }, 'latest'])).error?.message,
      'intrinsic gas too low: INTRINSIC_GAS_TOO_LOW: tx gas limit 256 is lower than the minimum gas limit of 21000',
    );
    assert.equal(
      (await call('eth_call', [{ data: '0x600056' }, 'latest'])).error?.message,
      'invalid JUMP at 0x0fdb9081f94bd9b14245d0a4dbb40f171d9f0566f451abf0b2f5e8e9019642c5/0xbd770416a3345f91e4b34576cb804a576fa48eb1:2',
    );
    assert.equal((await call('eth_call', [{ data: '0xfe' }, 'latest'])).error?.message, 'invalid opcode');
    assert.equal((await call('eth_call', [{ data: '0x50' }, 'latest'])).error?.message, 'stack underflow');
    assert.equal((await call('eth_call', [{ data: '0x60ff5f5260205f5f3e' }, 'latest'])).error?.message, 'out of gas');
    const pairing = { to: '0x0000000000000000000000000000000000000008', data: '0x01' };
    assert.equal((await call('eth_call', [pairing, 'latest'])).error?.message, 'invalid input length');
    const tip = { data: '0x00', from: DEV_ACCOUNTS[1]!.address, maxPriorityFeePerGas: '0x3', maxFeePerGas: '0x2' };
    assert.match((await call('eth_call', [tip, 'latest'])).error?.message ?? '', /^maxFeePerGas cannot be less than/);
    // (ethereumjs appended a dump of its VM, block hash included; the engine path ends at the reason.)
    assert.match(
      (await call('eth_call', [{ data: '0x00', from: c }, 'latest'])).error?.message ?? '',
      /^invalid sender address, address is not EOA \(EIP-3607\)/,
    );
  });

  it("refuses a priced call below the base fee in geth's words (ethereumjs dumped its VM, block hash included)", async () => {
    const poor = { from: EMPTY, to: DEV_ACCOUNTS[0]!.address, value: '0x1', gasPrice: '0x1' };
    assert.match(
      (await call('eth_estimateGas', [poor, 'latest'])).error?.message ?? '',
      /^max fee per gas less than block base fee: address 0x0{38}77, maxFeePerGas: 1, baseFee: [1-9]\d*$/,
    );
  });

  it("credits an unpriced call's sender what it lacks", async () => {
    // A creation returning SELFBALANCE: the sender (no funds) sends 5 wei, and they arrive.
    const out = await rpcResult<string>(node.http, 'eth_call', [
      { data: '0x4760005260206000f3', from: EMPTY, value: '0x5' },
      'latest',
    ]);
    assert.equal(BigInt('0x' + word(out, 0)), 5n);
    const priced = await call('eth_call', [{ data: '0x00', from: EMPTY, value: '0x5', gasPrice: '0x0' }, 'latest']);
    assert.notEqual(priced.error, undefined);
  });

  it('estimates and access lists', async () => {
    assert.equal(await rpcResult(node.http, 'eth_estimateGas', [{ to: c }, 'latest']), '0xbc59');
    assert.equal(
      (await call('eth_estimateGas', [{ to: c, gas: '0x5300' }, 'latest'])).error?.message,
      'gas required exceeds allowance (21248)',
    );
    const from = DEV_ACCOUNTS[0]!.address.toLowerCase();
    assert.equal(
      await rpcResult(node.http, 'eth_estimateGas', [{ from, to: EMPTY, value: '0x1' }, 'latest']),
      '0x5208',
    );
    const slot = (n: number) => '0x' + n.toString(16).padStart(64, '0');
    assert.deepEqual(await rpcResult(node.http, 'eth_createAccessList', [{ to: c, from }, 'latest']), {
      accessList: [
        { address: '0x000000000000000000000000000000000000beef', storageKeys: [] },
        { address: c.toLowerCase(), storageKeys: [slot(1), slot(2)] },
      ],
      gasUsed: '0xc2a7',
    });
    assert.deepEqual(await rpcResult(node.http, 'eth_createAccessList', [{ to: c, data: '0x01' }, 'latest']), {
      accessList: [],
      error: 'execution reverted',
      gasUsed: '0x5252',
    });
    // SLOAD(3), then CALL 0xbeef: both listed.
    const overridden = await rpcResult(node.http, 'eth_createAccessList', [
      { to: c },
      'latest',
      { [c]: { code: '0x6003545f5f5f5f5f61beef5af1' } },
    ]);
    assert.deepEqual(overridden, {
      accessList: [
        { address: '0x000000000000000000000000000000000000beef', storageKeys: [] },
        { address: c.toLowerCase(), storageKeys: [slot(3)] },
      ],
      gasUsed: '0x6d0e',
    });
  });
});
