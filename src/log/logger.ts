// Structured logs: every line carries a level, a time and a module, as text (`2026-01-02T03:04:05.678Z INFO
// [abci] message key=value`) or as one JSON object per line. Known secrets (the bearer token, private keys) are
// registered once and replaced by [REDACTED] in every line, so no code path can log them by accident.
import { errorMessage } from '../errors/index.ts';

/** Severity, lowest first. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
/** Output format. */
export type LogFormat = 'text' | 'json';

export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];
const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
const TEXT_LEVEL: Record<LogLevel, string> = { debug: 'DEBUG', info: 'INFO ', warn: 'WARN ', error: 'ERROR' };
const REDACTED = '[REDACTED]';
/** Field names whose values are never written, whatever they hold. */
const SECRET_FIELD = /(pass(word|phrase)?|secret|token|priv(ate)?_?key|mnemonic)$/i;

/** Extra key/value pairs of a line. */
export type LogFields = Record<string, unknown>;

/** A module's logger. */
export interface Logger {
  readonly module: string;
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** Whether lines of `level` are written (to skip building costly messages). */
  enabled(level: LogLevel): boolean;
  /** The logger of another module, sharing this one's sink, level and secrets. */
  child(module: string): Logger;
}

/** Parses a --log.level value. */
export function parseLogLevel(text: string): LogLevel {
  const l = text.trim().toLowerCase();
  if ((LOG_LEVELS as readonly string[]).includes(l)) return l as LogLevel;
  throw new Error(`invalid log level "${text}" (use ${LOG_LEVELS.join(', ')})`);
}

/** Parses a --log.format value. */
export function parseLogFormat(text: string): LogFormat {
  const f = text.trim().toLowerCase();
  if (f === 'text' || f === 'json') return f;
  throw new Error(`invalid log format "${text}" (use text or json)`);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function fieldText(v: unknown): string {
  if (v instanceof Error) return JSON.stringify(v.stack ?? v.message);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string') return /^[\w.:/@+-]+$/.test(v) ? v : JSON.stringify(v);
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x)) ?? String(v);
}

function jsonValue(v: unknown): unknown {
  if (v instanceof Error) return v.stack ?? v.message;
  if (typeof v === 'bigint') return v.toString();
  return v;
}

/** The shared state behind every module's logger. */
export class LogSink {
  private rank: number;
  private secrets: RegExp | undefined;
  private readonly secretList: string[] = [];

  constructor(
    public level: LogLevel,
    public format: LogFormat,
    private readonly write: (line: string) => void = (l) => process.stderr.write(l),
    private readonly now: () => Date = () => new Date(),
  ) {
    this.rank = RANK[level];
  }

  /** Changes the level (e.g. once app.toml is read). */
  setLevel(level: LogLevel): void {
    this.level = level;
    this.rank = RANK[level];
  }

  /** Registers a secret: it is replaced by [REDACTED] wherever it appears (case-insensitively, with or without 0x). */
  redact(secret: string): void {
    const s = secret.trim().replace(/^0x/i, '');
    if (s.length < 8 || this.secretList.includes(s)) return;
    this.secretList.push(s);
    this.secrets = new RegExp(this.secretList.map(escapeRegExp).join('|'), 'gi');
  }

  /** Whether `level` is written. */
  enabled(level: LogLevel): boolean {
    return RANK[level] >= this.rank;
  }

  /** Formats and writes one line. */
  emit(level: LogLevel, module: string, msg: string, fields?: LogFields): void {
    if (RANK[level] < this.rank) return;
    const time = this.now().toISOString();
    let line: string;
    if (this.format === 'json') {
      const obj: Record<string, unknown> = { level, time, module, msg };
      if (fields) {
        for (const [k, v] of Object.entries(fields)) {
          if (v !== undefined && !(k in obj)) obj[k] = SECRET_FIELD.test(k) ? REDACTED : jsonValue(v);
        }
      }
      line = JSON.stringify(obj);
    } else {
      line = `${time} ${TEXT_LEVEL[level]} [${module}] ${msg.replace(/\n/g, '\n    ')}`;
      if (fields) {
        for (const [k, v] of Object.entries(fields)) {
          if (v !== undefined) line += ` ${k}=${SECRET_FIELD.test(k) ? REDACTED : fieldText(v)}`;
        }
      }
    }
    if (this.secrets) line = line.replace(this.secrets, REDACTED);
    this.write(line + '\n');
  }

  /** The logger of `module`. */
  logger(module: string): Logger {
    return {
      module,
      debug: (msg, fields) => this.emit('debug', module, msg, fields),
      info: (msg, fields) => this.emit('info', module, msg, fields),
      warn: (msg, fields) => this.emit('warn', module, msg, fields),
      error: (msg, fields) => this.emit('error', module, msg, fields),
      enabled: (level) => this.enabled(level),
      child: (m) => this.logger(m),
    };
  }
}

/**
 * A thrown value as a log line shows it: an Error's stack (its name and message when it has none), anything else as
 * text. Never throws, whatever was thrown.
 */
export function errorText(e: unknown): string {
  return e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : errorMessage(e);
}

/** A logger that writes nothing (tests, library defaults). */
export function silentLogger(module = 'test'): Logger {
  return new LogSink('error', 'text', () => {}).logger(module);
}

/** Adapts a logger to the `(line) => void` callbacks modules take: "warning: …" lines at warn, others at `level`. */
export function lineLogger(log: Logger, level: LogLevel = 'info'): (line: string) => void {
  return (line) => (/^warning: /i.test(line) ? log.warn(line) : log[level](line));
}
