// Owns the tests' loopback ports that nothing listens on: bound, read and released, for refusal and unreachable-target tests.
import { createServer, type AddressInfo } from 'node:net';

/**
 * `count` distinct loopback ports nothing listens on: all are bound at once (so the kernel cannot hand out one twice,
 * as two closedPort() calls in a row may), then released. Another process may still take one before it is used.
 */
export async function closedPorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  try {
    await Promise.all(servers.map((server) => new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve))));
    return servers.map((server) => (server.address() as AddressInfo).port);
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()))));
  }
}

/** One loopback port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const [port] = await closedPorts(1);
  return port as number;
}
