// Properties of the /proc/mounts parser: generated mount lines (escapes included) parse back; junk never throws; the last mount at a point wins.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mountAt, normalizeMountPoint, parseMounts, unescapeMountField, type Mount } from '../../../src/agent/collectors/mounts.js';
import { interleave, junkLine, junkText } from './proc-arbitraries.js';

/** The kernel's escaping of a mount field (fs/proc_namespace.c mangle): space, tab, newline and backslash as octal. */
function escape(field: string): string {
  return field.replace(/[ \t\n\\]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`);
}

const segment = fc.string({ unit: fc.constantFrom('a', 'b', 'Z', '0', '-', '.', ' ', '\t', '\n', '\\', 'é'), minLength: 1, maxLength: 8 }).filter((s) => s !== '.' && s !== '..');
const mountPoint = fc.array(segment, { maxLength: 4 }).map((parts) => `/${parts.join('/')}`);
const word = fc.stringMatching(/^[a-z0-9_=,.-]{1,20}$/);
const mount = fc.record({ device: fc.oneof(word, mountPoint), mountPoint, fsType: word, options: word });

function render(m: Mount): string {
  return `${escape(m.device)} ${escape(m.mountPoint)} ${escape(m.fsType)} ${escape(m.options)} 0 0`;
}

describe('parseMounts', () => {
  it('parses generated mount lines back, escapes decoded', () => {
    fc.assert(
      fc.property(fc.array(mount, { maxLength: 12 }), fc.array(junkLine, { maxLength: 6 }), (mounts, junk) => {
        expect(parseMounts(interleave(mounts.map(render), junk).join('\n'))).toEqual(mounts);
      }),
    );
  });

  it('finds the last mount listed at a mount point, however the target spells it', () => {
    fc.assert(
      fc.property(fc.array(mount, { minLength: 1, maxLength: 12 }), fc.nat(), (mounts, pick) => {
        const wanted = mounts[pick % mounts.length] as Mount;
        const found = mountAt(mounts, `${wanted.mountPoint}/`.replace('/', '//'));
        expect(found).toBe(mounts.filter((m) => m.mountPoint === wanted.mountPoint).at(-1));
      }),
    );
  });

  it('never throws on junk; what it returns has absolute mount points', () => {
    fc.assert(
      fc.property(junkText, (text) => {
        for (const m of parseMounts(text)) expect(m.mountPoint.startsWith('/')).toBe(true);
      }),
    );
  });

  it('leaves text that is not an octal escape as written, and normalizes targets', () => {
    expect(unescapeMountField('a\\040b\\x\\9\\0')).toBe('a b\\x\\9\\0');
    expect(normalizeMountPoint('/')).toBe('/');
    expect(normalizeMountPoint('//var//log/')).toBe('/var/log');
    expect(parseMounts('tmpfs relative tmpfs rw 0 0\nshort line\n')).toEqual([]);
  });
});
