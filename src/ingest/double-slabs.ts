// Owns handing out room for doubles from shared slabs: the head's buffers take their columns here.

/** Doubles per slab (1 MiB). */
const SLAB_DOUBLES = 131_072;
/** Requests longer than this get an array of their own rather than a slab's piece. */
const SLAB_PIECE_DOUBLES_MAX = SLAB_DOUBLES / 8;

/** Where a head buffer gets room for its columns. */
export interface DoubleSource {
  /** A fresh, zeroed Float64Array of n doubles. */
  take(n: number): Float64Array;
}

/** Each request its own typed array (for buffers outside a head, such as in tests). */
export const OWN_ARRAYS: DoubleSource = { take: (n) => new Float64Array(n) };

/**
 * Pieces of 1 MiB slabs, handed out front to back and never reused. A typed array of its own
 * costs a backing-store allocation (about a microsecond, and external memory the GC must track);
 * a view into a slab costs only the view. A slab is freed once no piece of it is referenced. One
 * per head: the columns never leave their buffer (samples() copies), so no consumer can see or
 * transfer a slab.
 */
export class DoubleSlabs implements DoubleSource {
  private slab = new Float64Array(SLAB_DOUBLES);
  private used = 0;

  take(n: number): Float64Array {
    if (n > SLAB_PIECE_DOUBLES_MAX) return new Float64Array(n);
    if (this.used + n > SLAB_DOUBLES) {
      this.slab = new Float64Array(SLAB_DOUBLES);
      this.used = 0;
    }
    const piece = this.slab.subarray(this.used, this.used + n);
    this.used += n;
    return piece;
  }
}
