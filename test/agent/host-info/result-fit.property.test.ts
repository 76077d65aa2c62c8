// Properties of bounding a host_info.get result: the JSON fits the byte bound, the items kept are a prefix of at most the item bound, and truncated is set exactly when fewer than found are listed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HOST_INFO_RESULT_BYTES_MAX } from '../../../src/agent/host-info/host-info-limits.js';
import { fitList } from '../../../src/agent/host-info/result-fit.js';

const item = fc.record({ name: fc.string({ maxLength: 40 }), value: fc.nat(), flag: fc.boolean() });

describe('fitList', () => {
  it('keeps a prefix that fits, and says listed and total whenever it lists fewer than found', () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 60 }), fc.nat({ max: 20 }), fc.integer({ min: 0, max: 80 }), fc.integer({ min: 200, max: 3000 }), (items, extra, itemsMax, bytesMax) => {
        const result = fitList(1_700_000_000_000, items, items.length + extra, itemsMax, bytesMax);
        const listed = result.metrics as readonly unknown[];
        expect(listed).toEqual(items.slice(0, listed.length));
        expect(listed.length).toBeLessThanOrEqual(itemsMax);
        expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(bytesMax);
        const found = items.length + extra;
        expect(result.truncated).toEqual(listed.length < found ? { listed: listed.length, total: found } : null);
        // Greedy: the next item would not have fit (or the item bound was reached).
        if (listed.length < Math.min(items.length, itemsMax)) {
          const longer = { ...result, metrics: items.slice(0, listed.length + 1), truncated: { listed: found, total: found } };
          expect(Buffer.byteLength(JSON.stringify(longer))).toBeGreaterThan(bytesMax);
        }
      }),
    );
  });

  it('keeps a real-size list within a protocol line', () => {
    const big = Array.from({ length: 1000 }, (_, i) => ({ pid: i, exe_name: `/${'x'.repeat(1020)}`, exe_cwd: `/${'y'.repeat(1020)}`, exe_root: '/' }));
    const result = fitList(1, big, big.length, 1000);
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(HOST_INFO_RESULT_BYTES_MAX);
    expect(result.truncated).toEqual({ listed: (result.metrics as unknown[]).length, total: 1000 });
    expect((result.metrics as unknown[]).length).toBeGreaterThan(400);
  });
});
