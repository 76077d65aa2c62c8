// Owns the fixtures of the remote.tcp, remote.ping and remote.dns probe tests: checks, probe contexts and real loopback TCP servers.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CheckDoc } from '../../../src/monitoring/check-rules.js';
import { detailsWithDefaults, type CheckDetails, type CheckTypeId } from '../../../src/monitoring/check-types.js';
import { ensureProgram } from '../../support/debian-program.js';

/** A remote check doc of `type` with these details (defaults filled as stored). */
export function remoteCheck(type: CheckTypeId, details: CheckDetails): CheckDoc {
  return {
    label: 'probe test',
    type,
    details: detailsWithDefaults(type, details),
    monitoring_zones_poll: ['mzA'],
    target_alias: 'main',
    target_hostname: null,
    target_resolver: null,
    period: 60,
    timeout: 30,
    disabled: false,
    metadata: null,
  };
}

export { probeContext, type ContextOptions } from './probe-context.js';

/** A listening TCP test server that records what each connection sent. */
export interface TcpServer {
  readonly port: number;
  /** Connections accepted so far. */
  readonly connections: () => number;
  /** Everything received, per connection, as text. */
  readonly received: string[];
  close(): Promise<void>;
}

/** Starts a TCP server on `host` port 0 that hands each connection to `onConnection` and records what it receives. */
export async function startTcpServer(onConnection: (socket: Socket, index: number) => void, host = '127.0.0.1'): Promise<TcpServer> {
  const received: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    const index = received.push('') - 1;
    sockets.add(socket);
    socket.on('data', (chunk: Buffer) => {
      received[index] += chunk.toString('utf8');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    onConnection(socket, index);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => received.length,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export { closedPort } from '../../support/closed-ports.js';

/** A self-signed key and certificate for `localhost`, made by the openssl program. */
export function selfSignedCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'strata-tcp-tls-'));
  try {
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    ensureProgram('openssl', 'openssl');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost'], { stdio: 'ignore' });
    return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A loopback port whose SYNs go unanswered: connects to it hang as they would to a host behind a dropping firewall. */
export interface SilentPort {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * A port that drops connection attempts: a child process listens with a backlog of 1 and never
 * accepts (its event loop is blocked), and two connections fill its queue, so the kernel drops
 * further SYNs instead of answering them.
 */
export async function startSilentPort(): Promise<SilentPort> {
  const script = `const s=require('net').createServer();s.listen(0,'127.0.0.1',1,()=>{process.stdout.write(s.address().port+'\\n');Atomics.wait(new Int32Array(new SharedArrayBuffer(4)),0,0,60000)})`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (data: Buffer) => resolve(Number(data.toString().trim())));
    child.once('error', reject);
  });
  const fillers: Socket[] = [];
  for (let i = 0; i < 2; i += 1) {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    fillers.push(socket);
  }
  return {
    port,
    close: async () => {
      for (const socket of fillers) socket.destroy();
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await exited;
    },
  };
}
