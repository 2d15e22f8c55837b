// Binding a uWebSockets.js app: resolve with the bound port, reject with the kernel's reason when it cannot bind.
import net from 'node:net';
import type { UwsApp, UwsModule, us_listen_socket } from './uws.ts';

/** Listens on host:port (0 picks a free port); resolves with the listen socket and the port actually bound. */
export function listenUws(
  uws: UwsModule,
  app: UwsApp,
  host: string,
  port: number,
): Promise<{ socket: us_listen_socket; port: number }> {
  return new Promise((resolve, reject) => {
    app.listen(host, port, (socket) => {
      if (socket) {
        resolve({ socket, port: uws.us_socket_local_port(socket) });
        return;
      }
      // uWebSockets.js only says "false": bind the same address with node:net to learn why (EADDRINUSE, EADDRNOTAVAIL…).
      const probe = net.createServer();
      probe.once('error', (e) => reject(e));
      probe.listen(port, host, () => {
        probe.close();
        reject(Object.assign(new Error(`listen failed on ${host}:${port}`), { code: 'EUNKNOWN' }));
      });
    });
  });
}
