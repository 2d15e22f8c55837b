// Binding a node:http server: resolve with the bound port once listening, reject on a bind error (port in use,
// bad address) instead of leaving an unhandled 'error' event.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on host:port (0 picks a free port) and resolves with the port actually bound. */
export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const onError = (e: Error): void => reject(e);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Closes a server and its idle keep-alive sockets (which would otherwise hold close() open). */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
