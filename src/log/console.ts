// Routes the node process's console output through the structured logger, so lines written by any module (and
// by libraries) carry a level, a time and a module too. A leading "txpool: " / "abci: " … names the module (the
// message keeps it: operators grep for it). Only `kestreld start` installs this: it owns the process.
import { format } from 'node:util';
import type { LogLevel, LogSink } from './logger.ts';

/** Prefixes that name the module a console line comes from. */
const MODULE_PREFIX =
  /^(abci|txpool|keystore|rpc|grpc|consensus|filters|miner_\w+|cometbft|metrics|pruning|snapshots|statesync): /;

/** The module a console line names by its prefix, else `fallback`. */
export function moduleOf(line: string, fallback: string): string {
  const m = MODULE_PREFIX.exec(line);
  if (!m) return fallback;
  return m[1]!.startsWith('miner_') ? 'miner' : m[1]!;
}

/** Replaces console.log/info/warn/error/debug with lines of `sink` (module `fallback` when none is named). */
export function routeConsole(sink: LogSink, fallback = 'node'): void {
  const route =
    (level: LogLevel) =>
    (...args: unknown[]) => {
      if (!sink.enabled(level)) return;
      const msg = format(...args);
      sink.emit(level, moduleOf(msg, fallback), msg);
    };
  console.log = route('info');
  console.info = route('info');
  console.warn = route('warn');
  console.error = route('error');
  console.debug = route('debug');
}
