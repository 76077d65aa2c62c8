// Owns cutting the agent protocol's byte stream into '\n'-terminated lines, with a bound on the bytes of one line.
import { assert } from '../../core/assert.js';
import { StrataError } from '../../core/errors.js';
import { AGENT_LINE_BYTES_MAX } from '../agent-limits.js';

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into '\n'-terminated lines (without the '\n', a trailing '\r' removed), each at most lineBytesMax bytes.
 * The limit counts the bytes before the '\n', a '\r' among them: while a line is partial it cannot
 * be known whether a '\r' ends it, and the buffer must stay bounded.
 */
export class LineSplitter {
  /** Bytes of the line not yet finished, copied out of their chunks so that no chunk is retained. */
  private parts: Buffer[] = [];
  private partialBytes = 0;

  constructor(private lineBytesMax: number = AGENT_LINE_BYTES_MAX) {
    assert(Number.isSafeInteger(lineBytesMax) && lineBytesMax > 0, 'lineBytesMax is a positive integer');
  }

  /** Changes the bound for what is pushed from now on (the line being read counts its buffered bytes against the new bound). */
  setLineBytesMax(lineBytesMax: number): void {
    assert(Number.isSafeInteger(lineBytesMax) && lineBytesMax > 0, 'lineBytesMax is a positive integer');
    this.lineBytesMax = lineBytesMax;
  }

  /** The complete lines `chunk` finishes, decoded as UTF-8; throws StrataError AGENT_LINE_TOO_LONG when a line (complete or still partial) exceeds the limit. Buffers at most lineBytesMax bytes. */
  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE, start); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      this.checkLength(this.partialBytes + end - start);
      lines.push(this.finish(chunk.subarray(start, end)));
      start = end + 1;
    }
    if (start < chunk.length) {
      this.checkLength(this.partialBytes + chunk.length - start);
      this.parts.push(Buffer.from(chunk.subarray(start)));
      this.partialBytes += chunk.length - start;
    }
    return lines;
  }

  /** The line made of the buffered parts and `tail`, decoded; the buffer is emptied. */
  private finish(tail: Buffer): string {
    const bytes = this.parts.length === 0 ? tail : Buffer.concat([...this.parts, tail]);
    this.parts = [];
    this.partialBytes = 0;
    const length = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    return bytes.toString('utf8', 0, length);
  }

  private checkLength(bytes: number): void {
    if (bytes <= this.lineBytesMax) return;
    // The connection is closed after this; drop what was buffered rather than hold it.
    this.parts = [];
    this.partialBytes = 0;
    throw new StrataError('AGENT_LINE_TOO_LONG', `a protocol line is longer than ${this.lineBytesMax} bytes`, { lineBytesMax: this.lineBytesMax });
  }
}
