// The engine's byte helpers live in primitives/bytes.ts and primitives/hex.ts. This re-export serves only the test
// helper evm/testing/mem-reader.ts until it moves under test/ (another branch); delete it with that move.
export { EMPTY_CODE_HASH as KECCAK_EMPTY } from '../primitives/hash.ts';
export { bytesToHex } from '../primitives/hex.ts';
