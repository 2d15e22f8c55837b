// The bundle written in ASCII only, each module made so as the build loads it (scripts/build.mjs): esbuild escapes
// non-ASCII characters in strings and plain templates, but keeps them in comments, regular expressions and tagged
// templates. One such character makes Node decode the whole 4 MB
// file as UTF-8 into a two-byte string (about 20 ms of a start here, against 2-4 ms for Latin-1 of an ASCII file;
// bin/load-bundle.js reads an ASCII bundle as Latin-1). Each character is replaced by \u escapes, which mean the same
// character in a comment, a string, a regular expression (with or without the u flag) and an identifier (BMP).
// Where an escape would change the program (a tagged template's raw text, an astral character in an identifier),
// the text is left as it is.

/** Whether `text` is ASCII only. */
export function isAsciiText(text) {
  return !/[\u0080-\uffff]/.test(text);
}

const hex4 = (unit) => `\\u${unit.toString(16).padStart(4, '0')}`;

/**
 * `text` (a script) with every non-ASCII character escaped, or `{ text, kept }` naming why it was kept as it is.
 * Parses the script with TypeScript (a devDependency, like esbuild) only when it has such characters.
 */
export async function asciiScript(text) {
  if (isAsciiText(text)) return { text };
  const ts = (await import('typescript')).default;
  const sf = ts.createSourceFile('bundle.js', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  // Where an escape changes the program: a tagged template's text (its raw strings), an identifier's astral char.
  const raw = [];
  const names = [];
  const visit = (node) => {
    if (node.kind === ts.SyntaxKind.TaggedTemplateExpression) raw.push([node.template.pos, node.template.end]);
    else if (node.kind === ts.SyntaxKind.Identifier || node.kind === ts.SyntaxKind.PrivateIdentifier) {
      names.push([node.pos, node.end]);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  const inside = (ranges, i) => ranges.some(([from, to]) => i >= from && i < to);
  let out = '';
  let last = 0;
  for (const m of text.matchAll(/[\u{80}-\u{10ffff}]/gu)) {
    const i = m.index;
    if (inside(raw, i)) return { text, kept: `a tagged template holds a non-ASCII character at ${i}` };
    const cp = m[0].codePointAt(0);
    if (cp > 0xffff && inside(names, i)) return { text, kept: `an identifier holds an astral character at ${i}` };
    // After an odd number of backslashes the character is an identity escape (`\µ` is µ): the escape replaces both.
    let slashes = 0;
    while (text[i - 1 - slashes] === '\\') slashes++;
    const from = slashes % 2 === 1 ? i - 1 : i;
    const escaped = cp > 0xffff ? hex4(m[0].charCodeAt(0)) + hex4(m[0].charCodeAt(1)) : hex4(cp);
    out += text.slice(last, from) + escaped;
    last = i + m[0].length;
  }
  return { text: out + text.slice(last) };
}
