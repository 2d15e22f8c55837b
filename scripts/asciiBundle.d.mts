// Types of scripts/asciiBundle.mjs for the TypeScript tests that import it.
/** Whether `text` is ASCII only. */
export function isAsciiText(text: string): boolean;
/** `text` (a script) with every non-ASCII character escaped, or unchanged with `kept` naming why. */
export function asciiScript(text: string): Promise<{ text: string; kept?: string }>;
