// Tests the os-release parser on a distribution's file, quoting and escapes, comments and invalid lines.
import { describe, expect, it } from 'vitest';
import { parseOsRelease } from '../../../src/agent/host-info/os-release.js';
import { OS_RELEASE } from './host-fixtures.js';

describe('parseOsRelease', () => {
  it('reads quoted and bare values of a distribution file, skipping the comment', () => {
    const values = parseOsRelease(OS_RELEASE);
    expect(values.get('NAME')).toBe('Ubuntu');
    expect(values.get('VERSION_ID')).toBe('24.04');
    expect(values.get('VERSION')).toBe('24.04.1 LTS (Noble Numbat)');
    expect(values.get('ID')).toBe('ubuntu');
    expect(values.size).toBe(6);
  });

  it('undoes the escapes of double quotes, keeps single quotes literal, and skips what is not an assignment', () => {
    const values = parseOsRelease(['A="say \\"hi\\" \\$HOME \\\\ \\n"', "B='a \\\" b'", 'C=bare\\ word', '1BAD=x', 'no equals', '=x', 'D="unclosed', '  E = "x"', 'F="last"', 'F="wins"'].join('\n'));
    expect(Object.fromEntries(values)).toEqual({ A: 'say "hi" $HOME \\ \\n', B: 'a \\" b', C: 'bare word', F: 'wins' });
  });
});
