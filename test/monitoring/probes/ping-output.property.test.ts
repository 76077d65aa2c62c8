// Checks the ping output parser: generated iputils ping output (replies, duplicates, error lines, summary) parses back to what was generated.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePingOutput, tallyOf, type PingReply } from '../../../src/monitoring/probes/ping-output.js';

/** A round trip as ping prints it: milliseconds with 3 decimals (or none, for `time<1 ms` builds' whole numbers). */
const roundTrip = fc.record({ thousandths: fc.integer({ min: 0, max: 5_000_000 }), whole: fc.boolean() });
const address = fc.oneof(fc.ipV4(), fc.constantFrom('::1', '2001:db8::7', 'fe80::1%eth0'));

/** What ping might print, with the replies and the transmitted count it stands for. */
const run = fc
  .record({
    address,
    replies: fc.uniqueArray(fc.record({ seq: fc.integer({ min: 1, max: 40 }), trip: roundTrip, ttl: fc.integer({ min: 1, max: 255 }), duplicate: fc.boolean() }), { selector: (reply) => reply.seq, maxLength: 20 }),
    noise: fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 5 }),
    extra: fc.integer({ min: 0, max: 10 }),
    errors: fc.integer({ min: 0, max: 3 }),
  })
  .map(({ address: host, replies, noise, extra, errors }) => {
    const printed = replies.map((reply) => {
      const time = reply.trip.whole ? Math.floor(reply.trip.thousandths / 1000).toString() : (reply.trip.thousandths / 1000).toFixed(3);
      return { ...reply, time, line: `64 bytes from ${host}: icmp_seq=${reply.seq} ttl=${reply.ttl} time=${time} ms` };
    });
    const lines = [`PING ${host} (${host}) 56(84) bytes of data.`];
    for (const reply of printed) {
      lines.push(reply.line);
      if (reply.duplicate) lines.push(`${reply.line} (DUP!)`);
    }
    for (const seq of noise) lines.push(`From 10.0.0.1 icmp_seq=${seq} Destination Host Unreachable`);
    const transmitted = replies.length + extra;
    const duplicates = printed.filter((reply) => reply.duplicate).length;
    const counts = [`${transmitted} packets transmitted`, `${replies.length} received`];
    if (duplicates > 0) counts.push(`+${duplicates} duplicates`);
    if (errors > 0) counts.push(`+${errors} errors`);
    lines.push('', `--- ${host} ping statistics ---`, `${counts.join(', ')}, 0% packet loss, time 4005ms`);
    if (replies.length > 0) lines.push('rtt min/avg/max/mdev = 0.031/0.044/0.061/0.011 ms');
    const expected: PingReply[] = printed.map((reply) => ({ seq: reply.seq, timeMs: Number(reply.time) }));
    return { output: `${lines.join('\n')}\n`, transmitted, expected };
  });

describe('ping output', () => {
  it('parses generated output back to its replies (duplicates and error lines left out) and transmitted count', () => {
    fc.assert(
      fc.property(run, ({ output, transmitted, expected }) => {
        expect(parsePingOutput(output)).toEqual({ transmitted, replies: expected });
      }),
    );
  });

  it('output cut before the summary is not a report', () => {
    fc.assert(
      fc.property(run, ({ output }) => {
        expect(parsePingOutput(output.slice(0, output.indexOf('\n---')))).toBeNull();
      }),
    );
    expect(parsePingOutput('ping: socket: Operation not permitted\n')).toBeNull();
    expect(parsePingOutput('')).toBeNull();
  });

  it('a tally of count pings takes the first answer to each of requests 1..count and at most count sent', () => {
    fc.assert(
      fc.property(run, fc.integer({ min: 1, max: 15 }), ({ output, transmitted, expected }, count) => {
        const report = parsePingOutput(output);
        expect(report).not.toBeNull();
        const tally = tallyOf(report!, count);
        expect(tally.sent).toBe(Math.min(transmitted, count));
        expect(tally.roundTripsMs).toEqual(expected.filter((reply) => reply.seq <= count).map((reply) => reply.timeMs));
        expect(tally.roundTripsMs.length).toBeLessThanOrEqual(count);
      }),
    );
  });

  it('reads a real iputils transcript', () => {
    const transcript = [
      'PING 127.0.0.1 (127.0.0.1) 56(84) bytes of data.',
      '64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.045 ms',
      '64 bytes from 127.0.0.1: icmp_seq=2 ttl=64 time=0.061 ms',
      '',
      '--- 127.0.0.1 ping statistics ---',
      '2 packets transmitted, 2 received, 0% packet loss, time 1001ms',
      'rtt min/avg/max/mdev = 0.045/0.053/0.061/0.008 ms',
    ].join('\n');
    expect(parsePingOutput(transcript)).toEqual({ transmitted: 2, replies: [{ seq: 1, timeMs: 0.045 }, { seq: 2, timeMs: 0.061 }] });
  });
});
