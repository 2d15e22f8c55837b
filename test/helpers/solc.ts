// Compiles Solidity with the `solc` npm package (soljson): the fixtures at evmVersion "prague" (a fork every Kestrel
// chain runs but Cancun; ethereumjs, the oracle of several tests, runs Prague), optimizer on, cached per source
// text; or with the compiler's defaults as a user gets them (solc 0.8.37: evmVersion osaka, optimizer off).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import solc from 'solc';

export const EVM_VERSION = 'prague';

export interface CompiledContract {
  /** JSON ABI (compatible with ethers' Interface and viem's Abi). */
  abi: any[];
  /** Creation bytecode, 0x-prefixed. */
  bytecode: `0x${string}`;
  /** Runtime bytecode as eth_getCode must return it (no immutables in our fixtures). */
  deployedBytecode: `0x${string}`;
}

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'contracts');
const cache = new Map<string, Record<string, CompiledContract>>();

/** Compiles one source file's text; returns every contract in it by name. Throws on any compiler error. */
export function compileSource(source: string, fileName = 'Source.sol'): Record<string, CompiledContract> {
  const key = `${fileName}\0${source}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const input = {
    language: 'Solidity',
    sources: { [fileName]: { content: source } },
    settings: {
      evmVersion: EVM_VERSION,
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: Array<{ severity: string; formattedMessage: string }>;
    contracts?: Record<
      string,
      Record<string, { abi: any[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>
    >;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  const out: Record<string, CompiledContract> = {};
  for (const [name, c] of Object.entries(output.contracts?.[fileName] ?? {})) {
    out[name] = {
      abi: c.abi,
      bytecode: `0x${c.evm.bytecode.object}`,
      deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
    };
  }
  cache.set(key, out);
  return out;
}

/** A contract compiled with solc's default settings, and the evmVersion solc chose (from its metadata). */
export interface DefaultCompiled extends CompiledContract {
  evmVersion: string;
}

/** Compiles one source file with solc's default settings (no evmVersion, no optimizer); throws on compiler errors. */
export function compileWithDefaults(source: string, fileName = 'Source.sol'): Record<string, DefaultCompiled> {
  const input = {
    language: 'Solidity',
    sources: { [fileName]: { content: source } },
    settings: {
      outputSelection: { '*': { '*': ['abi', 'metadata', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: Array<{ severity: string; formattedMessage: string }>;
    contracts?: Record<
      string,
      Record<
        string,
        { abi: any[]; metadata: string; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }
      >
    >;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  const out: Record<string, DefaultCompiled> = {};
  for (const [name, c] of Object.entries(output.contracts?.[fileName] ?? {})) {
    out[name] = {
      abi: c.abi,
      bytecode: `0x${c.evm.bytecode.object}`,
      deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
      evmVersion: (JSON.parse(c.metadata) as { settings: { evmVersion: string } }).settings.evmVersion,
    };
  }
  return out;
}

/** Compiles test/fixtures/contracts/<file>. */
export function compileFixture(file = 'Kestrel.sol'): Record<string, CompiledContract> {
  return compileSource(readFileSync(join(FIXTURES, file), 'utf8'), file);
}

/** The Store and Token contracts of test/fixtures/contracts/Kestrel.sol. */
export function testContracts(): { Store: CompiledContract; Token: CompiledContract } {
  const all = compileFixture('Kestrel.sol');
  if (!all.Store || !all.Token) throw new Error('Kestrel.sol must define Store and Token');
  return { Store: all.Store, Token: all.Token };
}
