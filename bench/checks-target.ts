// Owns the checks bench's HTTP target: a tiny server in its own process (so it does not share the measured event loop), printing its port.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The body every check gets: small, like a health endpoint's. */
const BODY = 'ok\n';

const server = createServer((request, response) => {
  request.resume();
  response.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(BODY.length) }).end(BODY);
});
// Checks connect once per run; no backlog of idle sockets is wanted.
server.keepAliveTimeout = 1_000;
server.listen({ host: '127.0.0.1', port: 0, backlog: 4_096 }, () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
// Ends with the bench: when its stdin closes (the parent exited or closed it).
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
