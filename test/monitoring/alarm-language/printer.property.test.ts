// Property: printing any criteria tree and parsing the text gives the same tree; printing is canonical.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALARM_STATES, COMPARE_OPS, CONSISTENCY_LEVELS, type Condition, type Criteria, type Operand, type Statement } from '../../../src/monitoring/alarm-language/ast.js';
import { parseCriteria } from '../../../src/monitoring/alarm-language/parser.js';
import { printCriteria, quote } from '../../../src/monitoring/alarm-language/printer.js';

/** Characters that stress quoting: quotes, backslashes, controls, comment starts, non-ASCII, surrogate pairs. */
const tricky = fc.constantFrom("'", '"', '\\', '\n', '\r', '\t', '\b', '\u0000', '\u007f', '#', '/*', 'é', '\u2028', '😀', '\ud800');
const char = fc.oneof(tricky, fc.string({ minLength: 1, maxLength: 1 }));
const text = (min: number, max: number) => fc.string({ unit: char, minLength: min, maxLength: max }).filter((s) => s.length >= min && s.length <= max * 2);
const metricRef = text(1, 60).map((name) => ({ kind: 'metric', name }) as const);
const number = fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => ({ kind: 'number', value }) as const);
const regex = fc.constantFrom('^2\\d\\d$', 'error', '.*', 'a|b', '[a-z]+').map((value) => ({ kind: 'string', value }) as const);

const { operand } = fc.letrec<{ operand: Operand }>((tie) => ({
  operand: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    metricRef,
    number,
    text(0, 40).map((value) => ({ kind: 'string', value }) as const),
    fc.tuple(fc.constantFrom('previous', 'rate') as fc.Arbitrary<'previous' | 'rate'>, metricRef).map(([kind, metric]) => ({ kind, metric })),
    fc.tuple(tie('operand'), tie('operand')).map(([part, whole]) => ({ kind: 'percentage', part, whole }) as const),
  ),
}));

const compare: fc.Arbitrary<Condition> = fc.constantFrom(...COMPARE_OPS).chain((op) =>
  fc.record({ kind: fc.constant('compare' as const), op: fc.constant(op), left: operand, right: op === 'regex' || op === 'nregex' ? regex : operand }),
);

const { condition } = fc.letrec<{ condition: Condition }>((tie) => ({
  condition: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    compare,
    fc.record({ kind: fc.constantFrom('and', 'or') as fc.Arbitrary<'and' | 'or'>, left: tie('condition'), right: tie('condition') }),
  ),
}));

const returnStatement: fc.Arbitrary<Statement> = fc.record({
  kind: fc.constant('return' as const),
  state: fc.constantFrom(...ALARM_STATES),
  message: fc.option(text(0, 60), { nil: null }),
});

const { statement } = fc.letrec<{ statement: Statement }>((tie) => ({
  statement: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    returnStatement,
    fc.record({ kind: fc.constant('if' as const), condition, body: fc.array(tie('statement'), { maxLength: 3 }) }),
  ),
}));

function conditionals(body: readonly Statement[]): number {
  return body.reduce((n, s) => n + (s.kind === 'if' ? 1 + conditionals(s.body) : 0), 0);
}

const criteria: fc.Arbitrary<Criteria> = fc
  .record({
    settings: fc.record(
      { consecutiveCount: fc.integer({ min: 1, max: 5 }), consistencyLevel: fc.constantFrom(...CONSISTENCY_LEVELS) },
      { requiredKeys: [] },
    ),
    body: fc.array(statement, { maxLength: 4 }),
  })
  .filter((c) => conditionals(c.body) <= 10);

describe('printCriteria', () => {
  it('parse(print(tree)) equals tree', () => {
    fc.assert(
      fc.property(criteria, (tree) => {
        expect(parseCriteria(printCriteria(tree))).toEqual(tree);
      }),
      { numRuns: 400 },
    );
  });

  it('printing is canonical: print(parse(print(tree))) is print(tree)', () => {
    fc.assert(
      fc.property(criteria, (tree) => {
        const text = printCriteria(tree);
        expect(printCriteria(parseCriteria(text))).toBe(text);
      }),
      { numRuns: 200 },
    );
  });

  it('quotes strings so the tokenizer reads them back unchanged', () => {
    fc.assert(
      fc.property(text(0, 40), (value) => {
        const tree = parseCriteria(`return OK, ${quote(value)}`);
        expect(tree.body[0]).toEqual({ kind: 'return', state: 'OK', message: value });
      }),
    );
  });

  it('prints a readable canonical form', () => {
    const tree = parseCriteria(":set consistencyLevel=ONE\nif (metric['a']>1||metric['b']<2&&metric['c']==3) { return CRITICAL, 'x' } return OK");
    expect(printCriteria(tree)).toBe(
      ":set consistencyLevel=ONE\nif (metric['a'] > 1 || metric['b'] < 2 && metric['c'] == 3) {\n  return new AlarmStatus(CRITICAL, 'x');\n}\nreturn new AlarmStatus(OK);\n",
    );
  });
});
