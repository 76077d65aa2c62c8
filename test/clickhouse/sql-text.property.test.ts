// Property tests of the SQL text helpers: every JS string survives sqlString through ClickHouse 18.16 as its UTF-8, and sqlIdentifier takes exactly the names it promises.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RowBinaryReader, RowBinaryWriter } from '../../src/clickhouse/row-binary.js';
import { ShardClient } from '../../src/clickhouse/shard-client.js';
import { sqlIdentifier, sqlString } from '../../src/clickhouse/sql-text.js';
import { StrataError } from '../../src/core/errors.js';
import { CLICKHOUSE_IDENTIFIER_LENGTH_MAX } from '../../src/core/limits.js';

/** Characters that end, bend or hide inside a literal, mixed with ordinary, non-ASCII and astral ones. */
const tricky = fc.constantFrom('\\', "'", '"', '`', '\0', '\n', '\r', '\t', '\b', '\f', '\v', '\x01', '\x1b', '\x1f', '\x7f', '\x80', '\xff',
  '?', '{', '}', '$', ';', '--', '/*', '*/', 'x', ' ', 'é', '\u2028', '\ufeff', '\ufffd', '😀', '\\x41', '\\0', "\\'");
const wellFormed = fc.oneof(
  fc.string({ unit: tricky, maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: fc.oneof(tricky, fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), maxLength: 60 }),
);
/** Any UTF-16 code units, lone surrogates included, among the tricky characters. */
const anyUnits = fc.string({
  unit: fc.oneof(tricky, fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.integer({ min: 0xd800, max: 0xdfff })).map((c) => String.fromCharCode(c))),
  maxLength: 30,
});

describe('sqlString', () => {
  it('quotes every string into one line of printable text with no bare quote or backslash', () => {
    fc.assert(
      fc.property(fc.oneof(wellFormed, anyUnits), (s) => {
        const literal = sqlString(s);
        expect(literal.startsWith("'") && literal.endsWith("'")).toBe(true);
        const inner = literal.slice(1, -1);
        expect(inner).not.toMatch(/[\u0000-\u001f\u007f]/);
        // Every quote inside is escaped: drop the escape pairs and none is left.
        expect(inner.replace(/\\./g, '')).not.toMatch(/['\\]/);
      }),
      { numRuns: 2000 },
    );
  });

  it('spells the escapes ClickHouse reads', () => {
    expect(sqlString("a'b\\c")).toBe("'a\\'b\\\\c'");
    expect(sqlString('\0\n\r\t\x01\x7f')).toBe("'\\0\\n\\r\\t\\x01\\x7f'");
    expect(sqlString('é😀')).toBe("'é😀'");
  });

  describe('through ClickHouse 18.16', () => {
    const { urls } = inject('clickhouse');
    const database = `strata_h5_${randomBytes(6).toString('hex')}`;
    const shard = new ShardClient({ url: urls[0] as string, database, requestTimeoutMs: 30_000 });

    beforeAll(async () => {
      await shard.command(`CREATE DATABASE ${sqlIdentifier(database)}`, { noDatabase: true });
      await shard.command('CREATE TABLE names (name String) ENGINE = MergeTree ORDER BY name');
    });
    afterAll(async () => {
      await shard.command(`DROP DATABASE IF EXISTS ${sqlIdentifier(database)}`, { noDatabase: true });
      await shard.close();
    });

    /** `SELECT <literal> AS c0, …` as RowBinary: the server's bytes for each literal, in order. */
    async function selectLiterals(strings: readonly string[]): Promise<Buffer> {
      return shard.binary(`SELECT ${strings.map((s, i) => `${sqlString(s)} AS c${i}`).join(', ')}`);
    }

    it('answers SELECT <literal> with the string itself, for well-formed strings', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(wellFormed, { minLength: 1, maxLength: 20 }), async (strings) => {
          const answer = await selectLiterals(strings);
          const r = new RowBinaryReader(answer);
          expect(strings.map(() => r.string())).toEqual(strings);
          expect(r.done).toBe(true);
          // And the bytes are the UTF-8 RowBinary would store for them.
          const w = new RowBinaryWriter();
          for (const s of strings) w.string(s);
          expect(answer.equals(w.finish())).toBe(true);
        }),
        { numRuns: 150 },
      );
    });

    it('answers any string as its UTF-8 (lone surrogates as U+FFFD), the same bytes RowBinary stores', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(anyUnits, { minLength: 1, maxLength: 20 }), async (strings) => {
          const w = new RowBinaryWriter();
          for (const s of strings) w.string(s);
          expect((await selectLiterals(strings)).equals(w.finish())).toBe(true);
        }),
        { numRuns: 100 },
      );
    });

    it('finds a stored string by its literal, and only that one', async () => {
      await fc.assert(
        fc.asyncProperty(fc.uniqueArray(wellFormed, { minLength: 1, maxLength: 10 }), async (strings) => {
          await shard.command('TRUNCATE TABLE names');
          const w = new RowBinaryWriter();
          for (const s of strings) w.string(s);
          await shard.insertRowBinary('names', w.finish());
          for (const s of strings) {
            const found = await shard.rows<{ n: string }>(`SELECT count() AS n FROM names WHERE name = ${sqlString(s)}`);
            expect(found).toEqual([{ n: '1' }]);
          }
        }),
        { numRuns: 30 },
      );
    });
  });
});

describe('sqlIdentifier', () => {
  const identifier = fc.tuple(
    fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_'),
    fc.string({ unit: fc.constantFrom(...'abcxyzABCXYZ0123456789_'), maxLength: CLICKHOUSE_IDENTIFIER_LENGTH_MAX - 1 }),
  ).map(([head, tail]) => head + tail);

  it('backquotes every name of letters, digits and underscores that does not start with a digit', () => {
    fc.assert(
      fc.property(identifier, (name) => {
        expect(sqlIdentifier(name)).toBe(`\`${name}\``);
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses anything else with STORE_OPTIONS_INVALID', () => {
    const bad = fc.oneof(
      fc.string({ maxLength: 40 }).filter((s) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(s)),
      fc.tuple(fc.constantFrom(...'0123456789'), fc.string({ unit: fc.constantFrom('a', '1', '_'), maxLength: 10 })).map(([d, rest]) => d + rest),
      identifier.map((name) => `${name}\``),
      fc.constant('a'.repeat(CLICKHOUSE_IDENTIFIER_LENGTH_MAX + 1)),
    );
    fc.assert(
      fc.property(bad, (name) => {
        let error: unknown;
        try {
          sqlIdentifier(name);
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(StrataError);
        expect((error as StrataError).code).toBe('STORE_OPTIONS_INVALID');
        expect((error as StrataError).details.name).toBe(name);
      }),
      { numRuns: 1000 },
    );
    expect(sqlIdentifier('a'.repeat(CLICKHOUSE_IDENTIFIER_LENGTH_MAX))).toBe(`\`${'a'.repeat(CLICKHOUSE_IDENTIFIER_LENGTH_MAX)}\``);
    expect(() => sqlIdentifier(undefined as unknown as string)).toThrow(StrataError);
  });
});
