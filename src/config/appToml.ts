// Edits one key of app.toml in place, keeping every comment, blank line and other key as the operator wrote them
// (a TOML library would re-serialize the file and drop the comments). The edit is line-based: it finds the
// key's line(s) in its table, or where to add it, and the result is re-parsed and compared with the original
// before it replaces the file, so an edit can never change anything but that key.
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { parse as parseToml } from 'smol-toml';

/** A value this editor writes. */
export type TomlScalar = string | number | boolean;

type Table = Record<string, unknown>;

interface KeyLine {
  section: string | null;
  key: string;
  first: number;
  last: number;
  /** Trailing comment of a one-line value (with its leading spaces), kept on rewrite. */
  comment: string;
}

interface Layout {
  keys: KeyLine[];
  /** Header line index of each table. */
  headers: Map<string, number>;
  firstHeader: number;
}

/** Formats a scalar as a TOML value. */
export function tomlValue(v: TomlScalar): string {
  if (typeof v === 'string') return `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  if (typeof v === 'number' && !Number.isFinite(v)) throw new Error(`cannot write ${v} to TOML`);
  return String(v);
}

/**
 * Scans the value text of one line. Returns the bracket depth and open multi-line string after it, and where
 * a trailing comment starts (-1 if none).
 */
function scanValue(
  text: string,
  depth: number,
  ml: string | null,
): { depth: number; ml: string | null; comment: number } {
  let i = 0;
  while (i < text.length) {
    if (ml) {
      const end = text.indexOf(ml, i);
      if (end < 0) return { depth, ml, comment: -1 };
      i = end + 3;
      ml = null;
      continue;
    }
    const c = text[i]!;
    if (text.startsWith('"""', i) || text.startsWith("'''", i)) {
      ml = text.slice(i, i + 3);
      i += 3;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += c === '"' && text[j] === '\\' ? 2 : 1;
      i = j + 1;
    } else if (c === '#') {
      return { depth, ml, comment: i };
    } else {
      if (c === '[' || c === '{') depth++;
      if (c === ']' || c === '}') depth--;
      i++;
    }
  }
  return { depth, ml, comment: -1 };
}

function layoutOf(lines: string[]): Layout {
  const keys: KeyLine[] = [];
  const headers = new Map<string, number>();
  let section: string | null = null;
  let firstHeader = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const header = /^\s*\[\s*([^\][]+?)\s*\]\s*(#.*)?$/.exec(line);
    if (header) {
      section = header[1]!.replace(/^"(.*)"$/, '$1');
      headers.set(section, i);
      if (firstHeader < 0) firstHeader = i;
      continue;
    }
    const kv = /^\s*("[^"]*"|[A-Za-z0-9_-]+)\s*=(.*)$/.exec(line);
    if (!kv) continue;
    const key = kv[1]!.replace(/^"(.*)"$/, '$1');
    let st = scanValue(kv[2]!, 0, null);
    const comment = st.comment >= 0 && st.depth === 0 && !st.ml ? ` ${kv[2]!.slice(st.comment)}` : '';
    let last = i;
    while ((st.depth > 0 || st.ml) && last + 1 < lines.length) {
      last++;
      st = scanValue(lines[last]!, st.depth, st.ml);
    }
    keys.push({ section, key, first: i, last, comment });
    i = last;
  }
  return { keys, headers, firstHeader };
}

/** Returns `text` with `key` in table `section` (null: the top level) set to `value`, comments kept. */
export function editTomlText(text: string, section: string | null, key: string, value: TomlScalar): string {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  const lay = layoutOf(lines);
  const line = `${key} = ${tomlValue(value)}`;
  const found = lay.keys.find((k) => k.section === section && k.key === key);
  if (found) {
    const indent = /^\s*/.exec(lines[found.first]!)![0];
    lines.splice(found.first, found.last - found.first + 1, `${indent}${line}${found.comment}`);
  } else if (section === null || lay.headers.has(section)) {
    const inTable = lay.keys.filter((k) => k.section === section);
    let at: number;
    if (inTable.length > 0) at = inTable[inTable.length - 1]!.last + 1;
    else if (section !== null) at = lay.headers.get(section)! + 1;
    else at = lay.firstHeader >= 0 ? lay.firstHeader : lines.length;
    // A new top-level key goes before the first table, after a blank line that separates it from comments.
    if (section === null && inTable.length === 0 && lay.firstHeader >= 0) lines.splice(at, 0, line, '');
    else lines.splice(at, 0, line);
  } else {
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    lines.push('', `[${section}]`, line, '');
  }
  const out = lines.join(eol);
  verifyEdit(text, out, section, key, value);
  return out;
}

function verifyEdit(before: string, after: string, section: string | null, key: string, value: TomlScalar): void {
  const want = parseToml(before) as Table;
  const table = section === null ? want : ((want[section] ??= {}) as Table);
  table[key] = value;
  let got: Table;
  try {
    got = parseToml(after) as Table;
  } catch (e) {
    throw new Error(`app.toml edit of ${section ? section + '.' : ''}${key} would not parse: ${(e as Error).message}`);
  }
  const plain = (t: Table) =>
    JSON.stringify(t, (_k, v: unknown) => {
      if (typeof v === 'bigint') return `${v}n`;
      if (v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date)) {
        return Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      }
      return v;
    });
  if (plain(got) !== plain(want)) {
    throw new Error(
      `app.toml edit of ${section ? section + '.' : ''}${key} would change other settings; edit the file by hand`,
    );
  }
}

/** Sets one key of the TOML file at `path` (created if absent), atomically and keeping its mode. */
export function setTomlValue(path: string, section: string | null, key: string, value: TomlScalar): void {
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const out = editTomlText(text, section, key, value);
  const mode = existsSync(path) ? statSync(path).mode & 0o777 : 0o644;
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, out, { mode });
  renameSync(tmp, path);
}

/** Reads one key of the TOML file at `path` (undefined when the file or the key is absent). */
export function readTomlValue(path: string, section: string | null, key: string): unknown {
  if (!existsSync(path)) return undefined;
  const doc = parseToml(readFileSync(path, 'utf8')) as Table;
  const table = section === null ? doc : (doc[section] as Table | undefined);
  return table && typeof table === 'object' ? table[key] : undefined;
}

/**
 * The minimum-gas-prices text with the EVM denom's price set to `price` (the other denoms kept), e.g.
 * "0akestrel,1stake" → "5akestrel,1stake".
 */
export function withMinGasPrice(current: string | undefined, price: bigint, denom: string): string {
  const parts = (current ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  const mine = `${price}${denom}`;
  const i = parts.findIndex((p) => p.replace(/^[\d.]+/, '') === denom);
  if (i >= 0) parts[i] = mine;
  else parts.unshift(mine);
  return parts.join(',');
}

/** Writes the EVM denom's price into app.toml minimum-gas-prices (miner_setGasPrice); returns the new text. */
export function persistMinGasPrice(appTomlPath: string, price: bigint, denom: string): string {
  const current = readTomlValue(appTomlPath, null, 'minimum-gas-prices');
  const text = withMinGasPrice(typeof current === 'string' ? current : undefined, price, denom);
  setTomlValue(appTomlPath, null, 'minimum-gas-prices', text);
  return text;
}

/** Writes app.toml [miner] etherbase (miner_setEtherbase); `address` is a 0x-prefixed hex address. */
export function persistEtherbase(appTomlPath: string, address: string): void {
  setTomlValue(appTomlPath, 'miner', 'etherbase', address);
}
