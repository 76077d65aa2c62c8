// Properties of the /proc/diskstats parser: generated device lines parse back to their counters; junk never throws and is skipped.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diskNameOf, findDisk, parseDiskstats, type DiskStats } from '../../../src/agent/collectors/diskstats.js';
import { blank, counter, interleave, joinWith, junkLine, junkText } from './proc-arbitraries.js';

const device = fc.record({
  major: fc.nat({ max: 4095 }),
  minor: fc.nat({ max: 1_048_575 }),
  name: fc.stringMatching(/^[a-z][a-z0-9!_-]{0,14}$/),
  counters: fc.array(counter, { minLength: 17, maxLength: 17 }),
  width: fc.constantFrom(11, 15, 17),
  blanks: fc.array(blank, { minLength: 1, maxLength: 3 }),
});
type Device = typeof device extends fc.Arbitrary<infer T> ? T : never;

function render(d: Device): string {
  return `  ${joinWith([String(d.major), String(d.minor), d.name, ...d.counters.slice(0, d.width).map(String)], d.blanks)}`;
}

function expected(d: Device): DiskStats {
  const c = (field: number): number => d.counters[field - 1] ?? 0;
  return { name: d.name, reads: c(1), readSectors: c(3), readMs: c(4), writes: c(5), writeSectors: c(7), writeMs: c(8), inFlight: c(9), ioMs: c(10), weightedIoMs: c(11) };
}

describe('parseDiskstats', () => {
  it('parses generated device lines back to iostats fields 1 to 11', () => {
    fc.assert(
      fc.property(fc.uniqueArray(device, { selector: (d) => d.name, maxLength: 12 }), fc.array(junkLine, { maxLength: 6 }), (devices, junk) => {
        const disks = parseDiskstats(interleave(devices.map(render), junk).join('\n'));
        expect(disks).toEqual(devices.map(expected));
        for (const d of devices) expect(findDisk(disks, `/dev/${d.name.replaceAll('!', '/')}`)).toEqual(expected(d));
      }),
    );
  });

  it('never throws on junk; what it returns are devices with non-negative counters', () => {
    fc.assert(
      fc.property(junkText, (text) => {
        for (const disk of parseDiskstats(text)) {
          expect(disk.name).not.toBe('');
          for (const [key, value] of Object.entries(disk)) if (key !== 'name') expect(value >= 0).toBe(true);
        }
      }),
    );
  });

  it('skips the 4-counter partition lines of old kernels and lines with a non-number', () => {
    expect(parseDiskstats('   3    1 hda1 35486 38030 38030 38030\n   8 0 sda 1 2 3 4 5 6 7 8 9 10 x\n')).toEqual([]);
  });

  it('names devices as the kernel does: /dev/ dropped, inner slashes as !', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9]{1,8}$/), (name) => {
        expect(diskNameOf(`/dev/${name}`)).toBe(name);
      }),
    );
    expect(diskNameOf('/dev/cciss/c0d0')).toBe('cciss!c0d0');
    expect(diskNameOf('sda1')).toBe('sda1');
  });
});
