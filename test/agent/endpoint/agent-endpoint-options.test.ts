// Checks the endpoint's settings: defaults from the agent limits, and CONFIG_INVALID naming each option out of range.
import { describe, expect, it } from 'vitest';
import {
  AGENT_CONNECTIONS_MAX,
  AGENT_HEARTBEAT_INTERVAL_MS,
  AGENT_HEARTBEAT_INTERVAL_MS_MAX,
  AGENT_HEARTBEAT_INTERVAL_MS_MIN,
  AGENT_HELLO_TIMEOUT_MS,
  AGENT_PENDING_HANDSHAKES_MAX,
  AGENT_PENDING_HANDSHAKES_PER_ADDRESS_MAX,
  AGENT_TOKEN_CONNECTIONS_MAX,
  AGENT_UPDATE_DOWNLOADS_MAX,
  AGENT_UPDATE_DOWNLOADS_PER_ADDRESS_MAX,
} from '../../../src/agent/agent-limits.js';
import { endpointLimits, type AgentEndpointOptions } from '../../../src/agent/endpoint/agent-endpoint-options.js';

const base: AgentEndpointOptions = { listen: [{ zoneId: 'mzdfw', host: '127.0.0.1', port: 0 }], tls: { key: 'k', cert: 'c', rootCert: 'r' } };

function refusedOption(options: Partial<AgentEndpointOptions>): unknown {
  try {
    endpointLimits({ ...base, ...options });
  } catch (error) {
    expect(error).toMatchObject({ code: 'CONFIG_INVALID' });
    return (error as { details: { option: unknown } }).details.option;
  }
  throw new Error('the options were accepted');
}

describe('endpointLimits', () => {
  it('fills every default from the agent limits', () => {
    expect(endpointLimits(base)).toEqual({
      heartbeatIntervalMs: AGENT_HEARTBEAT_INTERVAL_MS,
      helloTimeoutMs: AGENT_HELLO_TIMEOUT_MS,
      channel: 'stable',
      connectionsMax: AGENT_CONNECTIONS_MAX,
      tokenConnectionsMax: AGENT_TOKEN_CONNECTIONS_MAX,
      pendingHandshakesMax: AGENT_PENDING_HANDSHAKES_MAX,
      pendingPerAddressMax: AGENT_PENDING_HANDSHAKES_PER_ADDRESS_MAX,
      downloadsMax: AGENT_UPDATE_DOWNLOADS_MAX,
      downloadsPerAddressMax: AGENT_UPDATE_DOWNLOADS_PER_ADDRESS_MAX,
    });
    expect(endpointLimits({ ...base, heartbeatIntervalMs: AGENT_HEARTBEAT_INTERVAL_MS_MIN, helloTimeoutMs: 1, channel: 'beta-2' })).toMatchObject({ heartbeatIntervalMs: AGENT_HEARTBEAT_INTERVAL_MS_MIN, helloTimeoutMs: 1, channel: 'beta-2' });
  });

  it('names the option out of range', () => {
    expect(refusedOption({ heartbeatIntervalMs: AGENT_HEARTBEAT_INTERVAL_MS_MIN - 1 })).toBe('heartbeatIntervalMs');
    expect(refusedOption({ heartbeatIntervalMs: AGENT_HEARTBEAT_INTERVAL_MS_MAX + 1 })).toBe('heartbeatIntervalMs');
    expect(refusedOption({ helloTimeoutMs: AGENT_HELLO_TIMEOUT_MS + 1 })).toBe('helloTimeoutMs');
    expect(refusedOption({ helloTimeoutMs: 0.5 })).toBe('helloTimeoutMs');
    expect(refusedOption({ connectionsMax: 0 })).toBe('connectionsMax');
    expect(refusedOption({ tokenConnectionsMax: -1 })).toBe('tokenConnectionsMax');
    expect(refusedOption({ pendingHandshakesMax: Number.NaN })).toBe('pendingHandshakesMax');
    expect(refusedOption({ pendingPerAddressMax: 0 })).toBe('pendingPerAddressMax');
    expect(refusedOption({ downloadsMax: 1.5 })).toBe('downloadsMax');
    expect(refusedOption({ downloadsPerAddressMax: -4 })).toBe('downloadsPerAddressMax');
    expect(refusedOption({ channel: 'Not A Channel' })).toBe('channel');
    expect(refusedOption({ listen: [] })).toBe('listen');
    expect(refusedOption({ listen: [base.listen[0]!, base.listen[0]!] })).toBe('listen');
  });
});
