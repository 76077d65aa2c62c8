// Owns cutting one Graphite connection's byte stream into lines with bounded memory: a line split across chunks is carried, a too-long one dropped unread.

const CH_NEWLINE = 0x0a;
const CH_CR = 0x0d;

/**
 * Finds the lines of a stream chunk by chunk. A line is carried over to the next chunk only while
 * it fits the limit (one trailing \r aside); a longer one is counted once and skipped up to its
 * newline without being kept, so a connection holds at most `lineBytesMax + 1` carried bytes.
 */
export class GraphiteLineFramer {
  /** Where the last line found lies: buf[start, end), newline excluded; valid until the next call. */
  lineBuf: Buffer;
  lineStart = 0;
  lineEnd = 0;
  private readonly carry: Buffer;
  private carried = 0;
  /** True while skipping the rest of a too-long line. */
  private dropping = false;

  /** `onTooLong` is called once per line longer than `lineBytesMax` bytes. */
  constructor(
    private readonly lineBytesMax: number,
    private readonly onTooLong: () => void,
  ) {
    this.carry = Buffer.alloc(lineBytesMax + 1);
    this.lineBuf = this.carry;
  }

  /**
   * Finds the next whole line of `chunk` at or after `pos`: returns the index just past its newline
   * and sets lineBuf, lineStart and lineEnd; returns -1 when the chunk holds no further newline (its
   * tail is carried, or dropped when it is already too long).
   */
  next(chunk: Buffer, pos: number): number {
    for (;;) {
      const newline = chunk.indexOf(CH_NEWLINE, pos);
      if (this.dropping) {
        if (newline < 0) return -1;
        this.dropping = false;
        pos = newline + 1;
        continue;
      }
      if (newline < 0) {
        this.carryTail(chunk, pos);
        return -1;
      }
      const length = this.carried + newline - pos;
      const last = newline > pos ? chunk[newline - 1] : this.carry[this.carried - 1];
      if ((last === CH_CR ? length - 1 : length) > this.lineBytesMax) {
        this.carried = 0;
        this.onTooLong();
        pos = newline + 1;
        continue;
      }
      if (this.carried === 0) {
        this.setLine(chunk, pos, newline);
      } else {
        chunk.copy(this.carry, this.carried, pos, newline);
        this.carried = 0;
        this.setLine(this.carry, 0, length);
      }
      return newline + 1;
    }
  }

  /** At the end of the stream: the unterminated last line, if any, becomes the current line (true). */
  finish(): boolean {
    if (this.dropping || this.carried === 0) return false;
    const length = this.carried;
    this.carried = 0;
    if ((this.carry[length - 1] === CH_CR ? length - 1 : length) > this.lineBytesMax) {
      this.onTooLong();
      return false;
    }
    this.setLine(this.carry, 0, length);
    return true;
  }

  /** Keeps chunk[pos, end) for the next chunk, or starts dropping the line when it no longer fits. */
  private carryTail(chunk: Buffer, pos: number): void {
    const rest = chunk.length - pos;
    if (rest === 0) return;
    if (this.carried + rest > this.carry.length) {
      this.carried = 0;
      this.dropping = true;
      this.onTooLong();
      return;
    }
    chunk.copy(this.carry, this.carried, pos);
    this.carried += rest;
  }

  private setLine(buf: Buffer, start: number, end: number): void {
    this.lineBuf = buf;
    this.lineStart = start;
    this.lineEnd = end;
  }
}
