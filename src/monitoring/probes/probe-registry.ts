// Owns which probe runs which remote check type.
import { REMOTE_DNS, REMOTE_HTTP, REMOTE_PING, REMOTE_TCP } from '../check-types.js';
import { dnsProbe } from './dns-probe.js';
import { httpProbe } from './http-probe.js';
import { pingProbe } from './ping-probe.js';
import type { Probe } from './probe-types.js';
import { tcpProbe } from './tcp-probe.js';

/** Probes by check type; a remote type without a probe is never scheduled (and test-check reports it). */
export type ProbeRegistry = ReadonlyMap<string, Probe>;

/** The probes of this build: remote.http, remote.tcp, remote.ping and remote.dns. */
export function defaultProbes(): ProbeRegistry {
  return new Map<string, Probe>([
    [REMOTE_HTTP, httpProbe],
    [REMOTE_TCP, tcpProbe],
    [REMOTE_PING, pingProbe],
    [REMOTE_DNS, dnsProbe],
  ]);
}
