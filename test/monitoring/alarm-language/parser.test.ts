// Checks the alarm-language parser on documented criteria, precedence, limits and error places.
import { describe, expect, it } from 'vitest';
import type { Criteria } from '../../../src/monitoring/alarm-language/ast.js';
import { AlarmParseError } from '../../../src/monitoring/alarm-language/parse-error.js';
import { parseCriteria } from '../../../src/monitoring/alarm-language/parser.js';

function failure(source: string): { line: number; column: number; token: string; message: string } {
  try {
    parseCriteria(source);
  } catch (error) {
    if (error instanceof AlarmParseError) return { ...error.place, message: error.message };
    throw error;
  }
  throw new Error(`parsed: ${source}`);
}

const metric = (name: string) => ({ kind: 'metric', name }) as const;

describe('parseCriteria', () => {
  it('parses the documented full form with settings, a message and a default return', () => {
    const criteria = parseCriteria(
      ':set consecutiveCount=3\n:set consistencyLevel=ALL\nif (metric["duration"] >= 2) { return new AlarmStatus(CRITICAL, \'slow: #{duration}\'); }\nreturn new AlarmStatus(OK);',
    );
    expect(criteria).toEqual<Criteria>({
      settings: { consecutiveCount: 3, consistencyLevel: 'ALL' },
      body: [
        {
          kind: 'if',
          condition: { kind: 'compare', op: '>=', left: metric('duration'), right: { kind: 'number', value: 2 } },
          body: [{ kind: 'return', state: 'CRITICAL', message: 'slow: #{duration}' }],
        },
        { kind: 'return', state: 'OK', message: null },
      ],
    });
  });

  it('accepts the shorthand returns seen in real criteria', () => {
    expect(parseCriteria('if (metric["duration"] < 50) { return OK } return WARNING').body[1]).toEqual({ kind: 'return', state: 'WARNING', message: null });
    expect(parseCriteria("if (metric['status'] == 404) { return CRITICAL }").body).toHaveLength(1);
    expect(parseCriteria('return CRITICAL, "HTTP request took too long"').body[0]).toEqual({ kind: 'return', state: 'CRITICAL', message: 'HTTP request took too long' });
    expect(parseCriteria('').body).toEqual([]);
  });

  it('parses functions, regex, negative numbers, and gives && precedence over ||, left-associative', () => {
    const { body } = parseCriteria(
      "if (rate(metric['rx']) > -1.5 || previous(metric['a']) != metric['a'] && percentage(metric['used'], metric['total']) > 90 || metric['body'] nregex '^ok$') { return WARNING }",
    );
    const condition = (body[0] as { condition: unknown }).condition;
    expect(condition).toEqual({
      kind: 'or',
      left: {
        kind: 'or',
        left: { kind: 'compare', op: '>', left: { kind: 'rate', metric: metric('rx') }, right: { kind: 'number', value: -1.5 } },
        right: {
          kind: 'and',
          left: { kind: 'compare', op: '!=', left: { kind: 'previous', metric: metric('a') }, right: metric('a') },
          right: { kind: 'compare', op: '>', left: { kind: 'percentage', part: metric('used'), whole: metric('total') }, right: { kind: 'number', value: 90 } },
        },
      },
      right: { kind: 'compare', op: 'nregex', left: metric('body'), right: { kind: 'string', value: '^ok$' } },
    });
    const grouped = parseCriteria("if ((metric['a'] > 1 || metric['b'] > 1) && metric['c'] > 1) { return OK }").body[0] as { condition: { kind: string } };
    expect(grouped.condition.kind).toBe('and');
  });

  it('reports line, column and token of the first error', () => {
    expect(failure('if (metric["a"] > 1) {\n  return new AlarmStatus(BROKEN);\n}')).toMatchObject({ line: 2, column: 26, token: 'BROKEN' });
    expect(failure('if (metric["a"] > 1) { return OK')).toMatchObject({ line: 1, column: 33, token: '', message: "expected '}'" });
    expect(failure('if (metric["a"]) { return OK }')).toMatchObject({ column: 16, token: ')' });
    expect(failure('return new AlarmStatus(OK')).toMatchObject({ token: '', message: "expected ')'" });
    expect(failure('metric["a"] > 1')).toMatchObject({ column: 1, token: 'metric', message: "expected 'if' or 'return'" });
    expect(failure("if (metric['a'] regex 5) { return OK }")).toMatchObject({ column: 23, token: '5' });
    expect(failure("if (metric['a'] regex '(') { return OK }")).toMatchObject({ token: "'('", message: 'invalid regular expression' });
    expect(failure('if (metric[a] > 1) { return OK }')).toMatchObject({ column: 12, token: 'a' });
    expect(failure("if (metric['a'] '==' 1) { return OK }")).toMatchObject({ column: 17, token: "'=='" });
  });

  it('enforces the language limits, each just inside and just outside', () => {
    const ifs = (n: number) => Array.from({ length: n }, () => "if (metric['a'] > 1) { return OK }").join('\n');
    expect(parseCriteria(ifs(10)).body).toHaveLength(10);
    expect(failure(ifs(11))).toMatchObject({ line: 11, token: 'if' });
    const cmp = (s: string) => `if (metric['a'] == '${s}') { return OK }`;
    expect(() => parseCriteria(cmp('x'.repeat(80)))).not.toThrow();
    expect(failure(cmp('x'.repeat(81))).message).toContain('longer than 80');
    const named = (n: number) => `if (metric['${'m'.repeat(n)}'] > 1) { return OK }`;
    expect(() => parseCriteria(named(128))).not.toThrow();
    expect(failure(named(129)).message).toContain('longer than 128');
    expect(failure("if (metric[''] > 1) { return OK }").message).toBe('metric name is empty');
    expect(() => parseCriteria(`return WARNING, '${'s'.repeat(128)}'`)).not.toThrow();
    expect(failure(`return WARNING, '${'s'.repeat(129)}'`).message).toContain('longer than 128');
    expect(parseCriteria(':set consecutiveCount=5').settings).toEqual({ consecutiveCount: 5 });
    expect(failure(':set consecutiveCount=6')).toMatchObject({ token: '6' });
    expect(failure(':set consecutiveCount=0')).toMatchObject({ token: '0' });
    expect(failure(':set consecutiveCount=1.5')).toMatchObject({ token: '1.5' });
    expect(failure(':set consistencyLevel=SOME')).toMatchObject({ token: 'SOME' });
    expect(failure(':set colour=red')).toMatchObject({ token: 'colour' });
    expect(failure(':set consecutiveCount=2\n:set consecutiveCount=3')).toMatchObject({ line: 2, message: 'consecutiveCount is set twice' });
    const nested = (n: number) => `${'if (metric[\'a\'] > 1) { '.repeat(n)}return OK${' }'.repeat(n)}`;
    expect(() => parseCriteria(nested(10))).not.toThrow();
    const deep = `if (${'('.repeat(40)}metric['a'] > 1${')'.repeat(40)}) { return OK }`;
    expect(failure(deep).message).toContain('nested deeper');
    expect(failure('if (metric["a"] > 1e999) { return OK }').message).toBe('number out of range');
  });
});
