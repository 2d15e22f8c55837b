// Block selectors as the node understands them after decoding (EIP-1898 included).

/** Named block tags. On an instant-finality chain safe and finalized are the head. */
export type BlockTag = 'latest' | 'pending' | 'earliest' | 'safe' | 'finalized';

/** A decoded block selector: a tag, a number, or a block hash (EIP-1898). */
export type BlockSelector =
  | { kind: 'tag'; tag: BlockTag }
  | { kind: 'number'; number: bigint }
  | { kind: 'hash'; hash: Uint8Array; requireCanonical: boolean };

/** The `latest` selector, the default for most state methods. */
export const LATEST: BlockSelector = Object.freeze({ kind: 'tag', tag: 'latest' }) as BlockSelector;
