// Owns the agent endpoint flags of `strata serve`: whether it listens, on which address and ports (one per zone), the certificate's names and the heartbeat interval.
import { InvalidArgumentError, Option } from 'commander';
import { AGENT_HEARTBEAT_INTERVAL_MS, AGENT_HEARTBEAT_INTERVAL_MS_MAX, AGENT_HEARTBEAT_INTERVAL_MS_MIN } from '../agent/agent-limits.js';
import type { AgentListen } from '../agent/endpoint/agent-endpoint.js';
import { isCertificateHost } from '../agent/endpoint/certificate-issuer.js';
import { configError } from '../core/config-error.js';
import { integerIn } from './cli-parsers.js';

/** The reference agent's endpoint ports (its TLS fixture servers), one per default zone in zone id order. */
export const AGENT_PORTS_DEFAULT: readonly number[] = [50041, 50051, 50061];
/** Highest TCP port. */
const PORT_MAX = 65_535;

/** The agent endpoint flags as commander names them. */
export interface AgentServeFlags {
  /** False with --no-agent-endpoint. */
  readonly agentEndpoint: boolean;
  readonly agentHost: string;
  readonly agentPorts: readonly number[];
  readonly agentCertHosts?: readonly string[];
  readonly agentHeartbeatMs: number;
}

/** Parses `50041,50051,50061` (0 picks a free port). */
function portList(text: string): number[] {
  const ports = text.split(',').map((item) => item.trim());
  const port = integerIn(0, PORT_MAX);
  if (ports.length === 0 || ports.some((item) => item === '')) throw new InvalidArgumentError('expected comma-separated ports');
  return ports.map((item) => port(item));
}

/** Adds comma-separated certificate names; each must be a DNS name or an IP address. */
function hostList(text: string, previous: readonly string[] = []): string[] {
  const hosts = text.split(',').map((item) => item.trim()).filter((item) => item !== '');
  for (const host of hosts) if (!isCertificateHost(host)) throw new InvalidArgumentError(`${host} is neither a DNS name nor an IP address`);
  return [...previous, ...hosts];
}

/** The listen address: a certificate name, or a wildcard address. */
function listenHost(text: string): string {
  const host = text.trim();
  if (host !== '0.0.0.0' && host !== '::' && !isCertificateHost(host)) throw new InvalidArgumentError(`${host} is neither a DNS name nor an IP address`);
  return host;
}

/** The agent endpoint's flags; the environment variable of each is STRATA_ plus its name. */
export function agentServeOptions(): Option[] {
  return [
    new Option('--no-agent-endpoint', 'do not listen for agents'),
    new Option('--agent-host <address>', 'address the agent endpoints listen on').env('STRATA_AGENT_HOST').default('127.0.0.1').argParser(listenHost),
    new Option('--agent-ports <ports>', 'comma-separated TLS ports of the agent endpoints in zone id order: one per configured monitoring zone, or one per zone this process runs (--zones); 0 picks a free one')
      .env('STRATA_AGENT_PORTS')
      .default([...AGENT_PORTS_DEFAULT], AGENT_PORTS_DEFAULT.join(','))
      .argParser(portList),
    new Option('--agent-cert-hosts <names>', "names and addresses the endpoint certificate is issued for (default: localhost, 127.0.0.1, ::1 and --agent-host); a change issues a new certificate under the same root")
      .env('STRATA_AGENT_CERT_HOSTS')
      .argParser(hostList),
    new Option('--agent-heartbeat-ms <ms>', 'heartbeat interval the endpoint tells agents; a connection silent for three intervals is closed')
      .env('STRATA_AGENT_HEARTBEAT_MS')
      .default(AGENT_HEARTBEAT_INTERVAL_MS)
      .argParser(integerIn(AGENT_HEARTBEAT_INTERVAL_MS_MIN, AGENT_HEARTBEAT_INTERVAL_MS_MAX)),
  ];
}

/**
 * One listener per zone this process runs. The ports list one port per configured zone (the
 * default's shape, so `--zones` alone picks those zones' ports) or one per zone this process runs,
 * in zone id order; any other count is CONFIG_INVALID.
 */
export function agentListenOf(flags: AgentServeFlags, configuredZoneIds: readonly string[], runZoneIds: readonly string[]): AgentListen[] {
  const ports = flags.agentPorts;
  const byConfigured = ports.length === configuredZoneIds.length;
  if (!byConfigured && ports.length !== runZoneIds.length) {
    throw configError('agentPorts', `${configuredZoneIds.length} ports (one per configured zone: ${configuredZoneIds.join(', ')}) or ${runZoneIds.length} (one per zone run)`, ports.join(','));
  }
  return runZoneIds.map((zoneId, i) => ({ zoneId, host: flags.agentHost, port: ports[byConfigured ? configuredZoneIds.indexOf(zoneId) : i] as number }));
}

/** The names the endpoint certificate covers: the flag's, else the loopback names plus the listen address when it is a specific one. */
export function agentCertHostsOf(flags: AgentServeFlags, defaults: readonly string[]): string[] {
  if (flags.agentCertHosts !== undefined && flags.agentCertHosts.length > 0) return [...new Set(flags.agentCertHosts)];
  const wildcard = flags.agentHost === '0.0.0.0' || flags.agentHost === '::';
  return [...new Set(wildcard ? defaults : [...defaults, flags.agentHost])];
}
