// Tests LineSplitter on hand-picked inputs: CRLF, empty lines, multi-byte characters cut between chunks, and the exact limit.
import { describe, expect, it } from 'vitest';
import { StrataError } from '../../../src/core/errors.js';
import { AGENT_LINE_BYTES_MAX } from '../../../src/agent/agent-limits.js';
import { LineSplitter } from '../../../src/agent/protocol/line-splitter.js';

const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');

function thrownBy(action: () => unknown): StrataError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(StrataError);
    return error as StrataError;
  }
  throw new Error('expected a throw');
}

describe('LineSplitter', () => {
  it('splits lines, removes one trailing CR, keeps empty lines and holds a partial line until its newline', () => {
    const splitter = new LineSplitter();
    expect(splitter.push(bytes('{"a":1}\r\n\n{"b"'))).toEqual(['{"a":1}', '']);
    expect(splitter.push(bytes(':2}'))).toEqual([]);
    expect(splitter.push(bytes('\r\r\n'))).toEqual(['{"b":2}\r']);
  });

  it('decodes a multi-byte character cut between chunks', () => {
    const splitter = new LineSplitter();
    const line = bytes('é€😀\n');
    expect([...splitter.push(line.subarray(0, 1)), ...splitter.push(line.subarray(1, 4)), ...splitter.push(line.subarray(4))]).toEqual(['é€😀']);
  });

  it('accepts a line of exactly lineBytesMax bytes and refuses one byte more, complete or partial', () => {
    expect(new LineSplitter(4).push(bytes('abcd\n'))).toEqual(['abcd']);
    expect(new LineSplitter(4).push(bytes('é€'.slice(0, 1) + 'ab\n'))).toEqual(['éab']);
    const complete = thrownBy(() => new LineSplitter(4).push(bytes('abcde\n')));
    expect(complete.code).toBe('AGENT_LINE_TOO_LONG');
    expect(complete.details).toEqual({ lineBytesMax: 4 });
    const partial = new LineSplitter(4);
    expect(partial.push(bytes('ab'))).toEqual([]);
    expect(thrownBy(() => partial.push(bytes('cde'))).code).toBe('AGENT_LINE_TOO_LONG');
  });

  it('counts a CR before the newline in the limit, since a partial line cannot know it ends there', () => {
    expect(thrownBy(() => new LineSplitter(4).push(bytes('abcd\r\n'))).code).toBe('AGENT_LINE_TOO_LONG');
  });

  it('defaults to AGENT_LINE_BYTES_MAX', () => {
    const splitter = new LineSplitter();
    expect(splitter.push(Buffer.alloc(AGENT_LINE_BYTES_MAX, 0x61))).toEqual([]);
    expect(thrownBy(() => splitter.push(bytes('a'))).code).toBe('AGENT_LINE_TOO_LONG');
  });
});
