// Owns the TLS server the update tests download from: a real listener on 127.0.0.1 that sniffs each connection's first bytes and hands HTTP ones to the update server, as the agent endpoint does.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createServer, type TLSSocket } from 'node:tls';
import { loadAgentTls } from '../../../src/agent/endpoint/agent-ca.js';
import { createUpdateHttpServer, handOverToHttp, looksLikeHttp, type UpdateHttpOptions } from '../../../src/agent/update/update-http.js';
import type { UpdateStore } from '../../../src/agent/update/update-store.js';
import { systemClock } from '../../../src/core/clock.js';

/** A listening update server and what a client needs to trust it. */
export interface UpdateTlsServer {
  readonly port: number;
  /** The root certificate (PEM) that issued the server's certificate. */
  readonly rootCert: string;
  /** Lines received on connections that were not HTTP. */
  readonly jsonLines: string[];
  close(): Promise<void>;
}

/** TLS material of a test server. */
export interface TestTls {
  readonly key: string;
  readonly cert: string;
  readonly rootCert: string;
}

/** A fresh in-memory agent CA (root and a server certificate for 127.0.0.1 and localhost). */
export function throwawayTls(): TestTls {
  return loadAgentTls({ dataDir: undefined, hosts: ['127.0.0.1', 'localhost'], clock: systemClock });
}

/** Starts a TLS listener on 127.0.0.1 (port 0) serving `store` over HTTP; non-HTTP connections get one line back and are closed. */
export async function startUpdateTlsServer(store: UpdateStore, options: UpdateHttpOptions & { readonly tls?: TestTls } = {}): Promise<UpdateTlsServer> {
  const tls = options.tls ?? throwawayTls();
  const http = createUpdateHttpServer(store, options);
  const sockets = new Set<TLSSocket>();
  const jsonLines: string[] = [];
  const server = createServer({ key: tls.key, cert: tls.cert });
  server.on('secureConnection', (socket: TLSSocket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.once('data', (chunk: Buffer) => {
      if (!looksLikeHttp(chunk)) {
        jsonLines.push(chunk.toString('utf8').trim());
        socket.end('{"not":"http"}\n');
        return;
      }
      handOverToHttp(http, socket, chunk);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    rootCert: tls.rootCert,
    jsonLines,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
