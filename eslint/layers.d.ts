// Types of eslint/layers.js for the TypeScript tests that import it.
import type { Rule } from 'eslint';

/** Each folder of src/ and what else in src/ it may import. */
export const LAYERS: Readonly<Record<string, readonly string[]>>;
/** The layer a path below src/ belongs to. */
export function layerOf(path: string): string | undefined;
/** ESLint rule kestrel/layers. */
export const layersRule: Rule.RuleModule;
/** The plugin that carries the rule. */
export const kestrelPlugin: { meta: { name: string }; rules: Record<string, Rule.RuleModule> };
