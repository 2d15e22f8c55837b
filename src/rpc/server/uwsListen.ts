// Binding a uWebSockets.js app: resolve with the bound port, reject with the kernel's reason when it cannot bind.
import net from 'node:net';
import { ListenGate } from './openConnections.ts';
import type { RunningServer } from './options.ts';
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

/**
 * A uWS app's listen socket under the open-connection gate (uWS tells JavaScript nothing about connections, so the
 * gate pauses the listener at the cap and binds the same port again below it). HTTP and WebSocket share it.
 */
export class UwsListener {
  /** The listen socket, undefined while the gate has paused it or after close. */
  private socket: us_listen_socket | undefined;
  private bound = 0;
  private readonly gate: ListenGate;

  constructor(
    private readonly uws: UwsModule,
    private readonly app: UwsApp,
    private readonly host: string,
    maxOpenConnections: number,
    log: (m: string) => void,
  ) {
    this.gate = new ListenGate(
      maxOpenConnections,
      {
        pause: () => this.unbind(),
        resume: async () => {
          try {
            this.socket = (await listenUws(this.uws, this.app, this.host, this.bound)).socket;
            return true;
          } catch {
            return false;
          }
        },
      },
      log,
    );
  }

  /** Binds `port` (0 picks a free one), starts the gate and resolves with the port bound. */
  async listen(port: number): Promise<number> {
    const b = await listenUws(this.uws, this.app, this.host, port);
    this.socket = b.socket;
    this.bound = b.port;
    this.gate.start(b.port);
    return b.port;
  }

  /**
   * Binds `port` and returns the running server. `timer` (the server's sweep) stops on close or when binding fails;
   * `closeConnections` runs before the app closes (uWS would otherwise drop WebSockets without a close frame).
   */
  async serve(port: number, timer: NodeJS.Timeout, closeConnections?: () => void): Promise<RunningServer> {
    let bound: number;
    try {
      bound = await this.listen(port);
    } catch (e) {
      clearInterval(timer);
      this.app.close();
      throw e;
    }
    let closed = false;
    return {
      transport: 'uws',
      port: bound,
      close: async () => {
        if (closed) return;
        closed = true;
        clearInterval(timer);
        this.close();
        closeConnections?.();
        // Closes every connection; requests still running see onAborted and their replies are dropped.
        this.app.close();
      },
    };
  }

  /** Stops the gate and closes the listen socket; open connections are the caller's to close. */
  close(): void {
    this.gate.stop();
    this.unbind();
  }

  private unbind(): void {
    if (this.socket !== undefined) this.uws.us_listen_socket_close(this.socket);
    this.socket = undefined;
  }
}
