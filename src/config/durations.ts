// Go-style duration strings ("0", "500ms", "1s", "2m0s") → milliseconds.

const UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Parses a Go duration string (both micro signs, as Go accepts) (or a bare number of seconds "0") into milliseconds; throws on bad input. */
export function parseDurationMs(text: string): number {
  const s = text.trim();
  if (s === '0') return 0;
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s) * 1000;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|μs|ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) {
    total += Number(m[1]) * UNITS[m[2]!]!;
    matched = re.lastIndex;
  }
  if (matched !== s.length || s.length === 0) throw new Error(`invalid duration "${text}"`);
  return total;
}
