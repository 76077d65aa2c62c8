// Properties of the /proc/cpuinfo parser: generated processor blocks parse back; junk never throws; core and socket counts stay within the CPUs listed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coreCount, parseCpuinfo, socketCount, type CpuInfoEntry } from '../../../src/agent/host-info/cpuinfo.js';
import { junkText } from '../collectors/proc-arbitraries.js';

const modelText = fc.stringMatching(/^[A-Za-z0-9()@.-]{1,12}( [A-Za-z0-9()@.-]{1,12}){0,4}$/);
interface Block {
  readonly vendor: string | null;
  readonly model: string | null;
  readonly mhz: number | null;
  readonly physicalId: number | null;
  readonly coreId: number | null;
}
const block: fc.Arbitrary<Block> = fc.record({
  vendor: fc.option(fc.constantFrom('GenuineIntel', 'AuthenticAMD', 'OtherVendor'), { nil: null }),
  model: fc.option(modelText, { nil: null }),
  mhz: fc.option(fc.double({ min: 0, max: 10_000, noNaN: true }).map((v) => Math.round(v * 1000) / 1000), { nil: null }),
  physicalId: fc.option(fc.nat({ max: 8 }), { nil: null }),
  coreId: fc.option(fc.nat({ max: 64 }), { nil: null }),
});
const NAMES: Record<string, string> = { GenuineIntel: 'Intel', AuthenticAMD: 'AMD', OtherVendor: 'OtherVendor' };

function render(processor: number, b: Block): string {
  const lines = [`processor\t: ${processor}`];
  if (b.vendor !== null) lines.push(`vendor_id\t: ${b.vendor}`);
  if (b.model !== null) lines.push(`model name\t: ${b.model}`);
  if (b.mhz !== null) lines.push(`cpu MHz\t\t: ${b.mhz.toFixed(3)}`);
  if (b.physicalId !== null) lines.push(`physical id\t: ${b.physicalId}`);
  if (b.coreId !== null) lines.push(`core id\t\t: ${b.coreId}`);
  return lines.join('\n');
}

describe('parseCpuinfo', () => {
  it('parses generated blocks back, in order', () => {
    fc.assert(
      fc.property(fc.array(block, { maxLength: 16 }), fc.boolean(), (blocks, blankSeparated) => {
        const text = blocks.map((b, i) => render(i, b)).join(blankSeparated ? '\n\n' : '\n') + '\n';
        const expected: CpuInfoEntry[] = blocks.map((b, i) => ({
          processor: i,
          vendor: b.vendor === null ? null : (NAMES[b.vendor] as string),
          model: b.model,
          mhz: b.mhz === null ? null : Math.round(Number(b.mhz.toFixed(3))),
          physicalId: b.physicalId,
          coreId: b.coreId,
        }));
        expect(parseCpuinfo(text)).toEqual(expected);
      }),
    );
  });

  it('never throws on junk, and its counts stay between 1 and the CPUs listed', () => {
    fc.assert(
      fc.property(junkText, fc.integer({ min: 1, max: 64 }), (text, logical) => {
        const entries = parseCpuinfo(text);
        const cores = coreCount(entries, logical);
        expect(cores).toBeGreaterThanOrEqual(1);
        expect(cores).toBeLessThanOrEqual(Math.max(logical, entries.length));
        const sockets = socketCount(entries);
        if (sockets !== null) expect(sockets).toBeLessThanOrEqual(entries.length);
      }),
    );
  });
});
