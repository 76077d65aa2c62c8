// Property tests of the RowBinary codec: random rows round-trip bit for bit, the writer grows and resets, the reader refuses what is malformed, and ClickHouse 18.16 answers the very bytes the writer sent.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RowBinaryReader, RowBinaryWriter } from '../../src/clickhouse/row-binary.js';
import { ShardClient } from '../../src/clickhouse/shard-client.js';
import { sqlIdentifier } from '../../src/clickhouse/sql-text.js';
import { AssertionFailure } from '../../src/core/assert.js';
import { StrataError } from '../../src/core/errors.js';

type Cell =
  | { readonly kind: 'u8'; readonly v: number }
  | { readonly kind: 'u32'; readonly v: number }
  | { readonly kind: 'u64'; readonly v: number }
  | { readonly kind: 'u64Bytes'; readonly v: Uint8Array }
  | { readonly kind: 'f64'; readonly v: number }
  | { readonly kind: 'string'; readonly v: string };

const u8 = fc.integer({ min: 0, max: 255 });
const u32 = fc.oneof(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.constantFrom(0, 2 ** 31, 2 ** 32 - 1));
const u64 = fc.oneof(fc.maxSafeNat(), fc.constantFrom(0, 2 ** 32 - 1, 2 ** 32, 2 ** 52, Number.MAX_SAFE_INTEGER));
const u64Bytes = fc.uint8Array({ minLength: 8, maxLength: 8 });
const f64 = fc.oneof(
  fc.double(),
  fc.constantFrom(-0, 0, Number.NaN, Infinity, -Infinity, Number.MIN_VALUE, -Number.MAX_VALUE, Number.EPSILON),
);
/** Well-formed strings: astral code points, empty ones, and some longer than a LEB128 byte or the writer's first buffer. */
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
  fc.constantFrom('', '😀', '\u0000', 'a'.repeat(127), 'b'.repeat(128), 'é'.repeat(70_000)),
  fc.string({ unit: 'binary-ascii', minLength: 100, maxLength: 20_000 }),
);

const cellOf = {
  u8: u8.map((v): Cell => ({ kind: 'u8', v })),
  u32: u32.map((v): Cell => ({ kind: 'u32', v })),
  u64: u64.map((v): Cell => ({ kind: 'u64', v })),
  u64Bytes: u64Bytes.map((v): Cell => ({ kind: 'u64Bytes', v })),
  f64: f64.map((v): Cell => ({ kind: 'f64', v })),
  string: text.map((v): Cell => ({ kind: 'string', v })),
};
const cell = fc.oneof(...Object.values(cellOf));
const rows = fc.array(fc.array(cell, { maxLength: 8 }), { maxLength: 30 });

function write(w: RowBinaryWriter, cells: readonly Cell[]): void {
  for (const c of cells) {
    if (c.kind === 'u64Bytes') w.u64Bytes(c.v);
    else if (c.kind === 'string') w.string(c.v);
    else w[c.kind](c.v);
  }
}

function encode(table: readonly (readonly Cell[])[]): Buffer {
  const w = new RowBinaryWriter();
  for (const row of table) write(w, row);
  return w.finish();
}

/** Reads `cells`' kinds back from `r`, as new cells. */
function readBack(r: RowBinaryReader, cells: readonly Cell[]): Cell[] {
  return cells.map((c): Cell => {
    if (c.kind === 'u64Bytes') return { kind: c.kind, v: r.u64Bytes() };
    if (c.kind === 'string') return { kind: c.kind, v: r.string() };
    return { kind: c.kind, v: r[c.kind]() };
  });
}

function expectSameCell(actual: Cell, expected: Cell): void {
  expect(actual.kind).toBe(expected.kind);
  if (expected.kind === 'u64Bytes') expect(Buffer.from(actual.v as Uint8Array).equals(Buffer.from(expected.v))).toBe(true);
  else expect(Object.is(actual.v, expected.v)).toBe(true);
}

function backendFailure(read: () => unknown): StrataError {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(StrataError);
    expect((error as StrataError).code).toBe('STORE_BACKEND_FAILED');
    return error as StrataError;
  }
  throw new Error('expected the read to fail');
}

describe('RowBinary round trip', () => {
  it('reads back every row as written, bit for bit, and re-encodes to the same bytes', () => {
    fc.assert(
      fc.property(rows, (table) => {
        const body = encode(table);
        const r = new RowBinaryReader(body);
        const back = table.map((row) => readBack(r, row));
        expect(r.done).toBe(true);
        back.forEach((row, i) => row.forEach((c, j) => expectSameCell(c, (table[i] as Cell[])[j] as Cell)));
        expect(encode(back).equals(body)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('counts its length, and finish() hands out a copy and starts over', () => {
    fc.assert(
      fc.property(rows, rows, (first, second) => {
        const w = new RowBinaryWriter();
        for (const row of first) write(w, row);
        const expectedFirst = encode(first);
        expect(w.length).toBe(expectedFirst.length);
        const a = w.finish();
        expect(w.length).toBe(0);
        for (const row of second) write(w, row);
        const b = w.finish();
        expect(a.equals(expectedFirst)).toBe(true);
        expect(b.equals(encode(second))).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('writes numbers little-endian, u64 as two 32-bit halves, strings with a LEB128 length', () => {
    const w = new RowBinaryWriter();
    w.u8(0xab);
    w.u32(0x01020304);
    w.u64(2 ** 32 + 5);
    w.f64(-0);
    w.string('é'.repeat(100)); // 200 bytes: LEB128 c8 01
    const body = w.finish();
    expect(body.subarray(0, 23).toString('hex')).toBe('ab' + '04030201' + '0500000001000000' + '0000000000000080' + 'c801');
    expect(body.length).toBe(1 + 4 + 8 + 8 + 2 + 200);
  });

  it('fails with STORE_BACKEND_FAILED on any body cut short', () => {
    fc.assert(
      fc.property(
        fc.array(cell, { minLength: 1, maxLength: 8 }).chain((cells) => {
          const body = encode([cells]);
          return fc.tuple(fc.constant(cells), fc.constant(body), fc.integer({ min: 0, max: body.length - 1 }));
        }),
        ([cells, body, cut]) => {
          backendFailure(() => readBack(new RowBinaryReader(body.subarray(0, cut)), cells));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses a UInt64 above the safe integers on both sides', () => {
    const r = new RowBinaryReader(Buffer.from('0000000000002000' + 'ffffffffffff1f00', 'hex'));
    const unsafe = backendFailure(() => r.u64());
    expect(unsafe.details.offset).toBe(0);
    const again = new RowBinaryReader(Buffer.from('ffffffffffff1f00', 'hex'));
    expect(again.u64()).toBe(Number.MAX_SAFE_INTEGER);
    const w = new RowBinaryWriter();
    for (const bad of [2 ** 53, -1, 1.5, Number.NaN]) expect(() => w.u64(bad)).toThrow(AssertionFailure);
    expect(() => w.u64Bytes(new Uint8Array(7))).toThrow(AssertionFailure);
    expect(w.length).toBe(0);
  });

  it('refuses a string length past the end and an overlong LEB128 length', () => {
    backendFailure(() => new RowBinaryReader(Buffer.from([5, 0x61, 0x62])).string());
    backendFailure(() => new RowBinaryReader(Buffer.alloc(12, 0x80)).string());
  });
});

describe('RowBinary against ClickHouse 18.16', () => {
  const { urls } = inject('clickhouse');
  const database = `strata_h5_${randomBytes(6).toString('hex')}`;
  const shard = new ShardClient({ url: urls[0] as string, database, requestTimeoutMs: 30_000 });
  const columns = ['a UInt8', 'b UInt32', 'c UInt64', 'd UInt64', 'e Float64', 'f String'];

  beforeAll(async () => {
    await shard.command(`CREATE DATABASE ${sqlIdentifier(database)}`, { noDatabase: true });
    await shard.command(`CREATE TABLE t (run UInt32, i UInt32, ${columns.join(', ')}) ENGINE = MergeTree ORDER BY (run, i)`);
  });
  afterAll(async () => {
    await shard.command(`DROP DATABASE IF EXISTS ${sqlIdentifier(database)}`, { noDatabase: true });
    await shard.close();
  });

  it('answers the very bytes the writer sent', async () => {
    const row = fc.tuple(u8, u32, u64, u64Bytes, f64, text);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 40 }), async (table) => {
        run += 1;
        const w = new RowBinaryWriter();
        table.forEach(([a, b, c, d, e, f], i) => {
          w.u32(run);
          w.u32(i);
          w.u8(a);
          w.u32(b);
          w.u64(c);
          w.u64Bytes(d);
          w.f64(e);
          w.string(f);
        });
        const body = w.finish();
        await shard.insertRowBinary('t', body);
        // Ordered as inserted, the answer is byte for byte the body: same integers, same float bits (NaN, -0), same UTF-8.
        const answer = await shard.binary(`SELECT * FROM t WHERE run = ${run} ORDER BY i`);
        expect(answer.equals(body)).toBe(true);
        const r = new RowBinaryReader(answer);
        for (const [a, b, c, d, e, f] of table) {
          r.u32();
          r.u32();
          expect([r.u8(), r.u32(), r.u64()]).toEqual([a, b, c]);
          expect(r.u64Bytes().equals(Buffer.from(d))).toBe(true);
          expect(Object.is(r.f64(), e)).toBe(true);
          expect(r.string()).toBe(f);
        }
        expect(r.done).toBe(true);
      }),
      { numRuns: 40 },
    );
  });
});
