// The back ends the server tests run on: node always, uws where its binary loads (a note says when it does not).
import { chooseTransport, type TransportChoice } from './transport.ts';

/** Every back end available on this machine, each as a started transport would get it. */
export function transportsUnderTest(): TransportChoice[] {
  const node = chooseTransport('node', { connectionCap: false });
  const uws = chooseTransport('auto', { connectionCap: true });
  if (uws.kind !== 'uws') {
    process.stderr.write(`# uws back end not tested here: ${uws.reason}\n`);
    return [node];
  }
  return [uws, node];
}
