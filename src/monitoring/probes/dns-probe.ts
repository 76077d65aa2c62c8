// Owns the remote.dns probe: one query to the DNS server the check targets, timed, with the answer and response code as metrics.
import { Resolver } from 'node:dns/promises';
import type { ResultMetric } from '../check-result.js';
import { DNS_RECORD_TYPES, type DnsRecordType } from '../check-types.js';
import { DNS_CHECK_PORT_DEFAULT } from '../monitoring-limits.js';
import { answerText, noAnswerText, rcodeOf, resolveRecords, type DnsAnswer } from './dns-answer.js';
import type { Probe, ProbeOutcome } from './probe-types.js';
import { deadlineOf, elapsedSince, stopwatchStart } from './tcp-socket.js';

/** `address:port` as the resolver takes a server, an IPv6 address in brackets. */
export function dnsServerOf(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

function recordTypeOf(value: unknown): DnsRecordType {
  return (DNS_RECORD_TYPES as readonly unknown[]).includes(value) ? (value as DnsRecordType) : 'A';
}

/** The metrics of an answered query: `rtt`, `rcode`, `answer`, `answer_count`, and `ttl` when the resolver reports one (`duration` is added to every outcome). */
function answeredMetrics(rttMs: number, rcode: string, answer: DnsAnswer): Record<string, ResultMetric> {
  const metrics: Record<string, ResultMetric> = {
    rtt: { type: 'n', data: rttMs, unit: 'milliseconds' },
    rcode: { type: 's', data: rcode, unit: 'unknown' },
    answer: { type: 's', data: answerText(answer.records), unit: 'unknown' },
    answer_count: { type: 'i', data: answer.records.length, unit: 'unknown' },
  };
  if (answer.ttlS !== null) metrics['ttl'] = { type: 'I', data: answer.ttlS, unit: 'seconds' };
  return metrics;
}

/**
 * remote.dns: asks the check's target, a DNS server, on details.port for the details.record_type
 * records of details.query, once (no retry), within the check timeout. A server that answered
 * ran the check: available, with the response code as `rcode` (NOERROR, NXDOMAIN, SERVFAIL,
 * REFUSED...) for alarms to judge. No answer (timeout, refused or unreachable port, malformed
 * reply) is unavailable.
 */
export const dnsProbe: Probe = async (context): Promise<ProbeOutcome> => {
  const startedAt = stopwatchStart();
  const { details } = context.check;
  const name = String(details['query']);
  const type = recordTypeOf(details['record_type']);
  const port = typeof details['port'] === 'number' ? details['port'] : DNS_CHECK_PORT_DEFAULT;
  const address = context.target.address;
  const duration = (): Record<string, ResultMetric> => ({ duration: { type: 'I', data: Math.round(elapsedSince(startedAt)), unit: 'milliseconds' } });
  if (!context.guard.allows(address)) return { available: false, status: `address ${address} is denied by the operator (--check-deny)`, metrics: duration() };
  // One try, waiting the whole timeout: a retry would only ask the same server again.
  const resolver = new Resolver({ timeout: context.timeoutMs, tries: 1 });
  resolver.setServers([dnsServerOf(address, port)]);
  const deadline = deadlineOf(context.signal, context.timeoutMs);
  const cancel = (): void => resolver.cancel();
  deadline.signal.addEventListener('abort', cancel, { once: true });
  try {
    const answer = await resolveRecords(resolver, name, type);
    const rttMs = elapsedSince(startedAt);
    return { available: true, status: `rcode=NOERROR,answers=${answer.records.length},rtt=${rttMs.toFixed(1)}ms`, metrics: { ...answeredMetrics(rttMs, 'NOERROR', answer), ...duration() } };
  } catch (error) {
    const code = String((error as { code?: unknown } | null)?.code ?? 'EUNKNOWN');
    const rcode = deadline.signal.aborted ? null : rcodeOf(code);
    if (rcode === null) return { available: false, status: noAnswerText(code, port, deadline.signal.aborted), metrics: duration() };
    const rttMs = elapsedSince(startedAt);
    return { available: true, status: `rcode=${rcode},answers=0,rtt=${rttMs.toFixed(1)}ms`, metrics: { ...answeredMetrics(rttMs, rcode, { records: [], ttlS: null }), ...duration() } };
  } finally {
    deadline.signal.removeEventListener('abort', cancel);
    deadline.dispose();
  }
};
