// Owns the types of the snappyjs functions Strata and its tests call (the package ships no types).
declare module 'snappyjs' {
  /** Compresses bytes into the snappy block format. */
  export function compress(uncompressed: Uint8Array): Uint8Array;
  /** Decompresses a snappy block; tests only use it as the reference (src/wire/snappy-body.ts says why). */
  export function uncompress(compressed: Uint8Array, maxLength?: number): Uint8Array;
}
