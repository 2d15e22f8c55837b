// Loading uWebSockets.js: the npm package @trufflesuite/uws-js-unofficial ships one prebuilt binary per platform,
// CPU and Node ABI (Linux/macOS/Windows, x64/arm64, Node 16/18/20). Its own entry point falls back to a slow
// JavaScript imitation with a console warning; Kestrel loads the binary itself and falls back to node:http instead.
import { createRequire } from 'node:module';
import type * as uWS from '@trufflesuite/uws-js-unofficial';

/** The parts of the native module Kestrel uses (the package's typings lack App.close). */
export type UwsApp = uWS.TemplatedApp & { close(): void };
/** The native module. */
export interface UwsModule {
  App(): UwsApp;
  us_listen_socket_close(listenSocket: uWS.us_listen_socket): void;
  us_socket_local_port(socket: uWS.us_listen_socket): number;
}
export type {
  HttpRequest,
  HttpResponse,
  WebSocket,
  us_listen_socket,
  us_socket_context_t,
} from '@trufflesuite/uws-js-unofficial';

/** Outcome of loading the binary. */
export type UwsLoad = { ok: true; module: UwsModule; version: string; binary: string } | { ok: false; reason: string };

const PACKAGE = '@trufflesuite/uws-js-unofficial';

/** Loads the binary for this platform and Node ABI (require caches it); the reason says why not when it cannot. */
export function loadUws(): UwsLoad {
  const require = createRequire(import.meta.url);
  const binary = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
  const where = `${process.platform}-${process.arch}, Node ${process.versions.node} (ABI ${process.versions.modules})`;
  let version: string;
  try {
    version = (require(`${PACKAGE}/package.json`) as { version: string }).version;
  } catch {
    return { ok: false, reason: `${PACKAGE} is not installed` };
  }
  try {
    const module = require(`${PACKAGE}/binaries/${binary}`) as UwsModule;
    if (typeof module.App !== 'function') return { ok: false, reason: `${binary} is not a uWebSockets.js binary` };
    return { ok: true, module, version, binary };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // A missing file is the common case (another Node ABI); anything else (musl, glibc too old) is worth quoting.
    const detail =
      code === 'MODULE_NOT_FOUND'
        ? `has no binary for ${where}`
        : `binary for ${where} does not load: ${(e as Error).message.split('\n')[0]}`;
    return { ok: false, reason: `uWebSockets.js (${PACKAGE} ${version}) ${detail}` };
  }
}
