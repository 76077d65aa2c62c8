// Owns the tests that keep ERROR_CODES and docs/errors.md in sync, and StrataError's basics.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, isStrataError, StrataError, type ErrorCode, type ErrorKind } from '../../src/core/errors.js';
import { STATUS_OF_KIND } from '../../src/core/error-status.js';

const DOC_PATH = resolve(import.meta.dirname, '../../docs/errors.md');
const CODE_TOKEN = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;
/** Read at run time: codes added later are checked too. */
const codes = Object.keys(ERROR_CODES) as ErrorCode[];
const infoOf = (code: string): { kind: ErrorKind; doc: string } => (ERROR_CODES as Record<string, { kind: ErrorKind; doc: string }>)[code]!;

/** Cells of every markdown table row in the doc (separator rows left out), with their line numbers. */
function tableRows(markdown: string): { line: number; cells: string[] }[] {
  return markdown
    .split('\n')
    .map((text, i) => ({ text: text.trim(), line: i + 1 }))
    .filter(({ text }) => text.startsWith('|') && text.endsWith('|') && !/^\|[\s|:-]+\|$/.test(text))
    .map(({ text, line }) => ({ line, cells: text.slice(1, -1).split('|').map((c) => c.trim()) }));
}

const doc = readFileSync(DOC_PATH, 'utf8');
const rows = tableRows(doc);
const codeRows = rows.filter((r) => r.cells.length === 4 && r.cells[0] !== 'Code');
const kindRows = rows.filter((r) => r.cells.length === 2 && r.cells[0] !== 'Kind');

describe('docs/errors.md', () => {
  it('has a code table with a header', () => {
    expect(rows.some((r) => r.cells.join('|') === 'Code|Kind|HTTP status|Meaning')).toBe(true);
    expect(codeRows.length).toBeGreaterThan(0);
  });

  it.each(codes)('documents %s once, with its kind, HTTP status and doc sentence', (code) => {
    const matching = codeRows.filter((r) => r.cells[0] === `\`${code}\``);
    expect(matching, `rows for ${code}`).toHaveLength(1);
    const [, kind, status, meaning] = matching[0]!.cells;
    const info = infoOf(code);
    expect(kind).toBe(info.kind);
    expect(Number(status)).toBe(STATUS_OF_KIND[info.kind]);
    expect(meaning).toBe(info.doc);
  });

  it('names no code in its table that ERROR_CODES does not have', () => {
    const unknown: string[] = [];
    for (const { line, cells } of codeRows) {
      const first = /^`([^`]+)`$/.exec(cells[0] ?? '');
      if (first === null || !CODE_TOKEN.test(first[1] as string)) unknown.push(`line ${line}: first cell ${cells[0]} is not a code`);
      // Code-looking tokens: the code column, and anything in backticks in any column.
      const tokens = [...(cells[0] ?? '').matchAll(/[A-Z][A-Z0-9_]+/g), ...cells.join(' ').matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? m[0]);
      for (const token of tokens) if (CODE_TOKEN.test(token) && !(token in ERROR_CODES)) unknown.push(`line ${line}: ${token}`);
    }
    expect(unknown).toEqual([]);
  });

  it('lists every kind with the status the one kind→status map gives it', () => {
    expect(Object.fromEntries(kindRows.map((r) => [r.cells[0], Number(r.cells[1])]))).toEqual(STATUS_OF_KIND);
  });
});

describe('ERROR_CODES', () => {
  it('maps every kind to the status the API promises', () => {
    expect(STATUS_OF_KIND).toEqual({
      invalid: 400,
      unauthenticated: 401,
      forbidden: 403,
      not_found: 404,
      method_not_allowed: 405,
      conflict: 409,
      over_limit: 413,
      rate_limited: 429,
      unsupported_media: 415,
      unavailable: 503,
      internal: 500,
    });
  });

  it.each(codes)('%s is an UPPER_SNAKE name with a known kind and one documenting sentence', (code) => {
    expect(code).toMatch(CODE_TOKEN);
    const info = infoOf(code);
    expect(Object.keys(STATUS_OF_KIND)).toContain(info.kind);
    expect(info.doc).toMatch(/^[A-Za-z].*\.$/);
    expect(info.doc).not.toContain('|');
    expect(info.doc).not.toContain('\n');
  });
});

describe('StrataError', () => {
  it('carries the code, the kind of the code, the message and the details', () => {
    const error = new StrataError('QUERY_POINTS_OVER_LIMIT', 'too many', { expectedPoints: 5760 });
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(StrataError);
    expect(error.name).toBe('StrataError');
    expect(error.code).toBe('QUERY_POINTS_OVER_LIMIT');
    expect(error.kind).toBe('over_limit');
    expect(error.message).toBe('too many');
    expect(error.details).toEqual({ expectedPoints: 5760 });
    expect(error.stack).toContain('too many');
    expect(String(error)).toBe('StrataError: too many');
  });

  it('has empty details by default', () => {
    expect(new StrataError('INTERNAL', 'x').details).toEqual({});
  });

  it.each(codes)('takes its kind from ERROR_CODES for %s', (code) => {
    expect(new StrataError(code, 'm').kind).toBe(infoOf(code).kind);
  });

  it('is recognised by isStrataError, and other values are not', () => {
    expect(isStrataError(new StrataError('STORE_LOCKED', 'x'))).toBe(true);
    expect(isStrataError(new Error('x'))).toBe(false);
    expect(isStrataError({ code: 'STORE_LOCKED', kind: 'conflict', message: 'x' })).toBe(false);
    expect(isStrataError(null)).toBe(false);
    expect(isStrataError('STORE_LOCKED')).toBe(false);
  });

  it('can be caught and told apart by code', () => {
    const run = (): never => {
      throw new StrataError('STORE_CLOSED', 'closed');
    };
    expect(run).toThrow(StrataError);
    try {
      run();
    } catch (error) {
      expect(isStrataError(error) && error.code === 'STORE_CLOSED' && error.kind === 'unavailable').toBe(true);
    }
  });
});
