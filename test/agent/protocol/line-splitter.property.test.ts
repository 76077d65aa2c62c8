// Properties of LineSplitter: any chunking of any lines gives the same lines, and a line over the limit always throws AGENT_LINE_TOO_LONG.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../../src/core/errors.js';
import { LineSplitter } from '../../../src/agent/protocol/line-splitter.js';

/** Lines of any Unicode text, multi-byte characters included, without '\n'; a '\r' may appear anywhere. */
const lineArb = fc.string({ unit: fc.oneof(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }), fc.constant('\r')), maxLength: 40 }).map((s) => s.replace(/\n/g, ''));

/** The bytes cut at the given (unsorted, unbounded) positions. */
function chunksOf(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const point of [...points, bytes.length]) {
    chunks.push(bytes.subarray(start, point));
    start = point;
  }
  return chunks;
}

/** What the splitter must give for a line: the line without one trailing '\r'. */
function expected(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

describe('LineSplitter properties', () => {
  it('gives the same lines whatever the chunking', () => {
    fc.assert(
      fc.property(fc.array(lineArb, { maxLength: 20 }), fc.array(fc.nat(), { maxLength: 30 }), (lines, cuts) => {
        const bytes = Buffer.from(lines.map((line) => `${line}\n`).join(''), 'utf8');
        const splitter = new LineSplitter(4096);
        const out = chunksOf(bytes, cuts).flatMap((chunk) => splitter.push(chunk));
        expect(out).toEqual(lines.map(expected));
      }),
    );
  });

  it('accepts every line of at most lineBytesMax bytes, and throws AGENT_LINE_TOO_LONG for a longer one whatever the chunking', () => {
    fc.assert(
      fc.property(
        fc.array(lineArb, { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 1, max: 60 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        fc.boolean(),
        (lines, lineBytesMax, cuts, terminated) => {
          const text = lines.join('\n') + (terminated ? '\n' : '');
          const bytes = Buffer.from(text, 'utf8');
          const longest = Math.max(...lines.map((line) => Buffer.byteLength(line)));
          const splitter = new LineSplitter(lineBytesMax);
          const out: string[] = [];
          let thrown: unknown;
          try {
            for (const chunk of chunksOf(bytes, cuts)) out.push(...splitter.push(chunk));
          } catch (error) {
            thrown = error;
          }
          if (longest > lineBytesMax) {
            expect(isStrataError(thrown) && thrown.code === 'AGENT_LINE_TOO_LONG').toBe(true);
          } else {
            expect(thrown).toBeUndefined();
            expect(out).toEqual((terminated ? lines : lines.slice(0, -1)).map(expected));
          }
          // Whatever came out before a throw is whole lines within the limit.
          for (const line of out) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(lineBytesMax);
        },
      ),
    );
  });
});
