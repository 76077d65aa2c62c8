// Owns the property tests of the Graphite line framer: however a stream is cut into chunks, the same lines come out and too-long ones are only counted.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GraphiteLineFramer } from '../../src/protocols/graphite-line-framer.js';

const LINE_MAX = 16;

/** Runs the framer over `chunks`, then finish(); the lines it yields (as text) and how many it counted too long. */
function frame(chunks: readonly Buffer[], lineMax = LINE_MAX): { lines: string[]; tooLong: number } {
  let tooLong = 0;
  const framer = new GraphiteLineFramer(lineMax, () => tooLong++);
  const lines: string[] = [];
  const take = (): number => lines.push(framer.lineBuf.toString('latin1', framer.lineStart, framer.lineEnd));
  for (const chunk of chunks) {
    for (let pos = framer.next(chunk, 0); pos >= 0; pos = framer.next(chunk, pos)) take();
  }
  if (framer.finish()) take();
  return { lines, tooLong };
}

/** What the framer must yield for `text`: every line within the limit (one trailing \r not counted), the unterminated last one too. */
function expected(text: string, lineMax = LINE_MAX): { lines: string[]; tooLong: number } {
  const parts = text.split('\n');
  if (parts[parts.length - 1] === '') parts.pop();
  const fits = (line: string): boolean => (line.endsWith('\r') ? line.length - 1 : line.length) <= lineMax;
  return { lines: parts.filter(fits), tooLong: parts.filter((line) => !fits(line)).length };
}

/** Cuts `bytes` at the given fractions of its length. */
function cut(bytes: Buffer, points: readonly number[]): Buffer[] {
  const at = [...new Set(points.map((p) => Math.floor(p * bytes.length)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const end of [...at, bytes.length]) {
    if (end > start) chunks.push(bytes.subarray(start, end));
    start = Math.max(start, end);
  }
  return chunks;
}

const line = fc.oneof(
  fc.stringMatching(/^[a-z .]{0,14}\r?$/),
  fc.stringMatching(/^[a-z .]{15,40}\r?$/),
  fc.constantFrom('', '\r', 'x'.repeat(LINE_MAX), `${'x'.repeat(LINE_MAX)}\r`, 'x'.repeat(LINE_MAX + 1)),
);

describe('GraphiteLineFramer', () => {
  it('yields the same lines and counts the same too-long ones however the stream is cut', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 20 }), fc.boolean(), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 }), (lines, terminated, points) => {
        const text = lines.join('\n') + (terminated && lines.length > 0 ? '\n' : '');
        const bytes = Buffer.from(text, 'latin1');
        expect(frame(cut(bytes, points))).toEqual(expected(text));
        expect(frame([...bytes].map((b) => Buffer.from([b])))).toEqual(expected(text));
      }),
      { numRuns: 1000 },
    );
  });

  it('never keeps more than the limit plus one byte of a line it is still reading', () => {
    const framer = new GraphiteLineFramer(LINE_MAX, () => {});
    for (let i = 0; i < 100; i++) expect(framer.next(Buffer.alloc(1000, 'x'), 0)).toBe(-1);
    expect((framer as unknown as { carry: Buffer }).carry.length).toBe(LINE_MAX + 1);
    expect(framer.next(Buffer.from('\nok\n'), 0)).toBe(4);
    expect(framer.lineBuf.toString('latin1', framer.lineStart, framer.lineEnd)).toBe('ok');
  });
});
