// Tests of the NAB recordings: finding the shared folder, reading CSVs (sorted, CRLF, extra columns), tiling them onto series, and refusing bad folders.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/core/errors.js';
import { defaultNabDir, describeNabTiling, loadNabRecordings, NAB_SERIES_SHIFT_VALUES, nabValue } from '../../src/workload/nab-recordings.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-nab-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function expectConfigInvalid(run: () => unknown, message: RegExp): void {
  try {
    run();
  } catch (error) {
    expect(isStrataError(error) && error.code).toBe('CONFIG_INVALID');
    expect((error as Error).message).toMatch(message);
    return;
  }
  throw new Error('expected CONFIG_INVALID');
}

describe('defaultNabDir', () => {
  it('is ../shared/workloads/nab beside the repository, found from the source tree', () => {
    const repository = resolve(import.meta.dirname, '..', '..');
    expect(defaultNabDir()).toBe(join(repository, '..', 'shared', 'workloads', 'nab'));
  });
});

describe('loadNabRecordings', () => {
  it('reads every CSV under the folder, sorted by path, as parseFloat of the second column', () => {
    mkdirSync(join(dir, 'b'));
    mkdirSync(join(dir, 'a'));
    writeFileSync(join(dir, 'b', 'z.csv'), 'timestamp,value\r\n2015-01-01 00:00:00,1.5\r\n2015-01-01 00:05:00,2\r\n');
    writeFileSync(join(dir, 'a', 'y.csv'), 'timestamp,value,label\n2015-01-01,10,x\n2015-01-02,-3.25e2,y');
    writeFileSync(join(dir, 'notes.txt'), 'not a recording');
    const recordings = loadNabRecordings(dir);
    expect(recordings.map((r) => r.path)).toEqual([join('a', 'y.csv'), join('b', 'z.csv')]);
    expect([...(recordings[0]?.values ?? [])]).toEqual([10, -325]);
    expect([...(recordings[1]?.values ?? [])]).toEqual([1.5, 2]);
    expect(describeNabTiling(recordings)).toMatch(/^NAB: 2 CSVs \(4 values\) sorted by path; series i replays recording i % 2/);
  });

  it('refuses a missing folder, a folder without CSVs, a line without a value and a recording without values', () => {
    expectConfigInvalid(() => loadNabRecordings(join(dir, 'absent')), /no NAB folder/);
    expectConfigInvalid(() => loadNabRecordings(dir), /no NAB recordings under/);
    writeFileSync(join(dir, 'a.csv'), 'timestamp,value\n2015-01-01\n');
    expectConfigInvalid(() => loadNabRecordings(dir), /without a value column/);
    writeFileSync(join(dir, 'a.csv'), 'timestamp,value\n');
    expectConfigInvalid(() => loadNabRecordings(dir), /holds no values/);
  });
});

describe('nabValue', () => {
  it('tiles series over recordings with a shift of NAB_SERIES_SHIFT_VALUES per round, wrapping', () => {
    const a = { path: 'a.csv', values: Float64Array.from({ length: 100 }, (_, i) => i) };
    const b = { path: 'b.csv', values: Float64Array.from({ length: 7 }, (_, i) => 1000 + i) };
    const recordings = [a, b];
    expect(nabValue(recordings, 0, 0)).toBe(0);
    expect(nabValue(recordings, 0, 105)).toBe(5);
    expect(nabValue(recordings, 1, 3)).toBe(1003);
    expect(nabValue(recordings, 2, 0)).toBe(NAB_SERIES_SHIFT_VALUES);
    expect(nabValue(recordings, 2, 5)).toBe((NAB_SERIES_SHIFT_VALUES + 5) % 100);
    expect(nabValue(recordings, 3, 0)).toBe(1000 + (NAB_SERIES_SHIFT_VALUES % 7));
  });
});
