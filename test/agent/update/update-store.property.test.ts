// Checks by property the version order (antisymmetric, transitive, numeric) and that no channel or version text reaches the file system unless it is a plain name.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPDATE_VERSION_LENGTH_MAX } from '../../../src/agent/agent-limits.js';
import { compareVersions, isChannel, isVersion, UpdateStore } from '../../../src/agent/update/update-store.js';

const part = fc.oneof(fc.nat({ max: 20 }), fc.nat(), fc.constant(Number.MAX_SAFE_INTEGER));
const parts = fc.array(part, { minLength: 1, maxLength: 4 });
const version = parts.map((numbers) => numbers.join('.')).filter((v) => v.length <= UPDATE_VERSION_LENGTH_MAX);
/** A version with optional leading zeros, which do not change its value. */
const paddedVersion = fc.tuple(parts, fc.array(fc.nat({ max: 2 }), { minLength: 4, maxLength: 4 })).map(([numbers, zeros]) => numbers.map((n, i) => '0'.repeat(zeros[i] ?? 0) + String(n)).join('.')).filter((v) => v.length <= UPDATE_VERSION_LENGTH_MAX);

function tupleOrder(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

describe('compareVersions', () => {
  it('is reflexive and antisymmetric', () => {
    fc.assert(
      fc.property(paddedVersion, paddedVersion, (a, b) => {
        expect(compareVersions(a, a)).toBe(0);
        expect(Math.sign(compareVersions(a, b))).toBe(-Math.sign(compareVersions(b, a)) || 0);
      }),
    );
  });

  it('is transitive', () => {
    fc.assert(
      fc.property(paddedVersion, paddedVersion, paddedVersion, (a, b, c) => {
        const sorted = [a, b, c].sort(compareVersions);
        const [x = '', y = '', z = ''] = sorted;
        expect(compareVersions(x, y)).toBeLessThanOrEqual(0);
        expect(compareVersions(y, z)).toBeLessThanOrEqual(0);
        expect(compareVersions(x, z)).toBeLessThanOrEqual(0);
        if (compareVersions(x, y) < 0 || compareVersions(y, z) < 0) expect(compareVersions(x, z)).toBeLessThan(0);
      }),
    );
  });

  it('orders by number, part by part, never by text', () => {
    fc.assert(
      fc.property(parts, parts, (a, b) => {
        fc.pre(a.join('.').length <= UPDATE_VERSION_LENGTH_MAX && b.join('.').length <= UPDATE_VERSION_LENGTH_MAX);
        expect(Math.sign(compareVersions(a.join('.'), b.join('.')))).toBe(tupleOrder(a, b));
      }),
    );
    expect(compareVersions('10', '9')).toBeGreaterThan(0);
    expect(compareVersions('1.10', '1.9')).toBeGreaterThan(0);
    expect(compareVersions('2.0.0.10', '2.0.0.2')).toBeGreaterThan(0);
    expect(compareVersions('1', '1.0.0')).toBe(0);
    expect(compareVersions('007', '7')).toBe(0);
  });

  it('orders numbers past 2^53 exactly (digit strings, not doubles)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 40n }), fc.bigInt({ min: 0n, max: 10n ** 40n }), (a, b) => {
        expect(Math.sign(compareVersions(String(a), String(b)))).toBe(a < b ? -1 : a > b ? 1 : 0);
      }),
    );
  });

  it('takes exactly what isVersion accepts', () => {
    fc.assert(
      fc.property(version, (v) => {
        expect(isVersion(v)).toBe(true);
      }),
    );
    for (const bad of ['', '.', '1.', '.1', '1..2', '1.2.3.4.5', '-1', '1.a', ' 1', '1 ', '1/2', '..', '1\0', '１', '9'.repeat(65)]) {
      expect(isVersion(bad), JSON.stringify(bad)).toBe(false);
      expect(() => compareVersions(bad, '1')).toThrow();
    }
  });
});

describe('update store path safety', () => {
  let dataDir: string;
  let store: UpdateStore;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'strata-update-paths-'));
    store = new UpdateStore(dataDir);
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const hostile = fc.oneof(
    fc.string(),
    fc.string({ unit: fc.constantFrom('.', '/', '\0', '\\', 'a', '1', '%', '2', 'f') }),
    fc.tuple(fc.string(), fc.constantFrom('..', '/', '\0', '../', '/..'), fc.string()).map(([a, b, c]) => a + b + c),
  );

  it('gives a path only for plain names, and only inside the store', () => {
    fc.assert(
      fc.property(hostile, hostile, fc.constantFrom('bundle', 'bundle.sig', '../bundle', 'bundle/'), (channel, v, file) => {
        const path = store.filePath(channel, v, file);
        if (path !== undefined) expect(relative(join(dataDir, 'agent-updates'), path)).toBe(join(channel, v, file));
        if (channel.includes('..') || channel.includes('/') || channel.includes('\0') || v.includes('/') || v.includes('\0') || v.includes('..')) {
          expect(path).toBeUndefined();
        }
      }),
    );
  });

  it('publishes nothing anywhere for a name with .., / or NUL', () => {
    fc.assert(
      fc.property(hostile, hostile, (channel, v) => {
        fc.pre(!(isChannel(channel) && isVersion(v)));
        expect(() => store.publish(channel, v, Buffer.from('x'), Buffer.alloc(64))).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
        expect(store.latestVersion(channel)).toBeNull();
      }),
    );
    expect(readdirSync(dataDir)).toEqual([]);
  });
});
