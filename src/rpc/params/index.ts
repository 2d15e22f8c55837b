// Public surface of the RPC parameter codecs: the codec contract plus every concrete codec.
export * from './codec.ts';
export * from './quantity.ts';
export * from './data.ts';
export * from './block.ts';
export * from './callRequest.ts';
export * from './filter.ts';
export * from './proof.ts';
export * from './storage.ts';
export * from './overrides.ts';
export * from './simulate.ts';
