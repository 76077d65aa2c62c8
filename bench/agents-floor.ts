// Owns the agents bench's floor: a bare TLS server in its own process, one listener per zone with the endpoint's certificate, answering every protocol request with {} through RpcPeer (no monitoring behind it).
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createServer } from 'node:tls';
import { RpcPeer } from '../src/agent/protocol/rpc-peer.js';
import { ENDPOINT_NAME } from '../src/agent/protocol/messages.js';
import { AGENT_ZONES } from './agents-workload.js';

/** argv: <data dir> (its agent-ca/server.key and server.crt are served); prints `ports a,b,c`, ends when stdin closes. */
async function main(): Promise<void> {
  const dataDir = process.argv[2];
  if (dataDir === undefined) throw new Error('usage: agents-floor.js <data dir>');
  const key = readFileSync(join(dataDir, 'agent-ca', 'server.key'));
  const cert = readFileSync(join(dataDir, 'agent-ca', 'server.crt'));
  const ports: number[] = [];
  for (let zone = 0; zone < AGENT_ZONES; zone++) {
    const server = createServer({ key, cert }, (socket) => {
      new RpcPeer({ socket, self: ENDPOINT_NAME, peer: 'agent', onRequest: () => ({}) });
    });
    server.listen({ host: '127.0.0.1', port: 0, backlog: 4_096 });
    await once(server, 'listening');
    ports.push((server.address() as AddressInfo).port);
  }
  process.stdout.write(`ports ${ports.join(',')}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
}

await main();
