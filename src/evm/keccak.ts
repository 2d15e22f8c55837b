// keccak-256 lives in primitives/keccak.ts. This re-export serves only the test helper evm/testing/mem-reader.ts
// until it moves under test/ (another branch); delete it with that move.
export { keccak256 } from '../primitives/keccak.ts';
