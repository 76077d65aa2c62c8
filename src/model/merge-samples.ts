// Owns merging stored samples with newer ones: the newer sample wins at an equal timestamp.
import type { SampleColumns, StringColumns } from './bucket.js';

interface Cursor {
  readonly ts: Float64Array;
  readonly isString: boolean;
  readonly columns: SampleColumns | StringColumns;
  i: number;
}

function cursors(s: SampleColumns): Cursor[] {
  const out: Cursor[] = [{ ts: s.timestampsMs.subarray(0, s.length), isString: false, columns: s, i: 0 }];
  if (s.strings !== null) out.push({ ts: s.strings.timestampsMs.subarray(0, s.strings.length), isString: true, columns: s.strings, i: 0 });
  return out;
}

function nextTime(cs: Cursor[]): number {
  let t = Infinity;
  for (const c of cs) if (c.i < c.ts.length && (c.ts[c.i] as number) < t) t = c.ts[c.i] as number;
  return t;
}

/** Takes the sample at time `t` from the cursors (advancing them); returns it if any had one. */
function takeAt(cs: Cursor[], t: number): { isString: boolean; value: number | string } | undefined {
  let found: { isString: boolean; value: number | string } | undefined;
  for (const c of cs) {
    if (c.i < c.ts.length && c.ts[c.i] === t) {
      found = c.isString
        ? { isString: true, value: (c.columns as StringColumns).values[c.i] as string }
        : { isString: false, value: (c.columns as SampleColumns).values[c.i] as number };
      c.i++;
    }
  }
  return found;
}

/** Union of two sample sets by timestamp; where both have a sample, `newer` wins. */
export function mergeSamples(older: SampleColumns, newer: SampleColumns): SampleColumns {
  const a = cursors(older);
  const b = cursors(newer);
  const cap = older.length + newer.length;
  const ts = new Float64Array(cap);
  const vs = new Float64Array(cap);
  const strTs: number[] = [];
  const strVs: string[] = [];
  let n = 0;
  for (;;) {
    const t = Math.min(nextTime(a), nextTime(b));
    if (t === Infinity) break;
    const oldSample = takeAt(a, t);
    const sample = takeAt(b, t) ?? oldSample;
    if (sample === undefined) continue;
    if (sample.isString) {
      strTs.push(t);
      strVs.push(sample.value as string);
    } else {
      ts[n] = t;
      vs[n] = sample.value as number;
      n++;
    }
  }
  const strings: StringColumns | null = strTs.length > 0 ? { length: strTs.length, timestampsMs: Float64Array.from(strTs), values: strVs } : null;
  return { length: n, timestampsMs: ts.slice(0, n), values: vs.slice(0, n), strings };
}
