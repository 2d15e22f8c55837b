// The YAML the Cosmos SDK CLI prints for `--output text` (its JSON run through yaml.v2: keys sorted, numbers-as-
// strings quoted, null and [] written as such). Enough YAML for query results: objects, arrays, strings, null.

type Json = null | string | number | boolean | Json[] | { [k: string]: Json };

function scalar(v: string | number | boolean | null): string {
  if (v === null) return 'null';
  if (typeof v !== 'string') return String(v);
  const plainUnsafe =
    v === '' ||
    /^[-+]?(\d[\d_]*)?(\.\d*)?([eE][-+]?\d+)?$/.test(v) ||
    /^(true|false|yes|no|on|off|y|n|null|~)$/i.test(v) ||
    /^[\s\-?:,[\]{}#&*!|>'"%@`]/.test(v) ||
    /[:#]\s|\s$|:$/.test(v) ||
    /[\n\t"\\]/.test(v);
  return plainUnsafe ? JSON.stringify(v) : v;
}

function lines(v: Json, indent: string): string[] {
  if (Array.isArray(v)) {
    if (v.length === 0) return ['[]'];
    return v.flatMap((item) => {
      const inner = lines(item, indent + '  ');
      if (item !== null && typeof item === 'object' && !(Array.isArray(item) && item.length === 0)) {
        return [`${indent}- ${inner[0]!.trimStart()}`, ...inner.slice(1)];
      }
      return [`${indent}- ${inner[0]}`];
    });
  }
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v).sort();
    if (keys.length === 0) return ['{}'];
    return keys.flatMap((k) => {
      const child = v[k]!;
      const nested =
        child !== null &&
        typeof child === 'object' &&
        (Array.isArray(child) ? child.length > 0 : Object.keys(child).length > 0);
      if (!nested) return [`${indent}${k}: ${lines(child, indent)[0]}`];
      // yaml.v2 puts a sequence under its key at the same indentation, a map one level in.
      return [`${indent}${k}:`, ...lines(child, Array.isArray(child) ? indent : indent + '  ')];
    });
  }
  return [scalar(v)];
}

/** Renders a JSON value as yaml.v2 would (with a trailing newline). */
export function toYaml(v: Json): string {
  return lines(v, '').join('\n') + '\n';
}
