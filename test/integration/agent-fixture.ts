// Owns what the agent integration tests share: free loopback ports, a silent agent logger, and a real in-process agent fleet with the usual settings.
import { createServer, type AddressInfo, type Server } from 'node:net';
import { systemScheduler } from '../../src/agent/client/agent-deps.js';
import { AgentFleet, type AgentFleetOptions } from '../../src/agent/client/agent-fleet.js';
import { collectorFor } from '../../src/agent/collectors/collector-registry.js';
import { systemClock } from '../../src/core/clock.js';

/** An agent logger that writes nothing. */
export const quietAgentLogger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

/** Distinct free loopback ports (bound together, then released). */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  for (let i = 0; i < count; i++) {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
  }
  const ports = servers.map((server) => (server.address() as AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  return ports;
}

/** What a test says of its agent; the rest of AgentFleetOptions is the usual (versions 1.0.0, the real collectors, clock, scheduler and randomness, a silent logger). */
export type TestFleetOptions = Pick<AgentFleetOptions, 'endpoints' | 'ca' | 'token' | 'agentId' | 'guid' | 'onConnected'>;

/** A real agent fleet of this process (not started). */
export function testFleet(options: TestFleetOptions): AgentFleet {
  return new AgentFleet({
    ...options,
    processVersion: '1.0.0',
    bundleVersion: '1.0.0',
    collectorFor: (type) => collectorFor(type),
    clock: systemClock,
    scheduler: systemScheduler,
    random: Math.random,
    logger: quietAgentLogger,
  });
}
