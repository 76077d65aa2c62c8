// Properties of the /proc/net/dev parser: generated interface lines parse back to their counters; junk never throws and is skipped.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseNetDev, type InterfaceStats } from '../../../src/agent/collectors/net-dev.js';
import { blank, counter, interleave, joinWith, junkLine, junkText } from './proc-arbitraries.js';

const HEADER = `Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed`;

const iface = fc.record({
  name: fc.stringMatching(/^[a-z][a-z0-9._@-]{0,14}$/),
  counters: fc.array(counter, { minLength: 16, maxLength: 16 }),
  indent: fc.nat({ max: 6 }),
  afterColon: fc.constantFrom('', ' ', '   '),
  blanks: fc.array(blank, { minLength: 1, maxLength: 3 }),
});
type Iface = typeof iface extends fc.Arbitrary<infer T> ? T : never;

function expected(i: Iface): InterfaceStats {
  const c = (index: number): number => i.counters[index] ?? 0;
  return {
    name: i.name,
    rxBytes: c(0), rxPackets: c(1), rxErrors: c(2), rxDropped: c(3), rxFifo: c(4), rxFrame: c(5),
    txBytes: c(8), txPackets: c(9), txErrors: c(10), txDropped: c(11), txFifo: c(12), txCollisions: c(13), txCarrier: c(14),
  };
}

describe('parseNetDev', () => {
  it('parses generated interface lines back, with or without a blank after the colon', () => {
    fc.assert(
      fc.property(fc.uniqueArray(iface, { selector: (i) => i.name, maxLength: 10 }), fc.array(junkLine, { maxLength: 6 }), (ifaces, junk) => {
        const records = ifaces.map((i) => `${' '.repeat(i.indent)}${i.name}:${i.afterColon}${joinWith(i.counters.map(String), i.blanks)}`);
        expect(parseNetDev(`${HEADER}\n${interleave(records, junk).join('\n')}\n`)).toEqual(ifaces.map(expected));
      }),
    );
  });

  it('never throws on junk; what it returns has names without blanks or slashes', () => {
    fc.assert(
      fc.property(junkText, (text) => {
        for (const stats of parseNetDev(text)) expect(stats.name).toMatch(/^[^\s/:]+$/);
      }),
    );
  });

  it('skips the headers, lines with too few or too many columns, and a repeated interface', () => {
    const row = Array.from({ length: 16 }, (_, i) => i).join(' ');
    const stats = parseNetDev(`${HEADER}\neth0: 1 2 3\neth1: ${row} 99\neth2: ${row}\neth2: ${row.replace('0', '7')}\n`);
    expect(stats.map((s) => [s.name, s.rxBytes])).toEqual([['eth2', 0]]);
  });
});
