// Owns the protocol tests' transport: a throwaway self-signed certificate, connected TLS socket pairs on 127.0.0.1, and a line reader for raw sockets.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { connect, createServer, type TLSSocket } from 'node:tls';
import forge from 'node-forge';

/** A key and a self-signed certificate (PEM) for CN localhost, SANs localhost and 127.0.0.1, valid for a day. */
export interface TestTlsMaterial {
  readonly key: string;
  readonly cert: string;
}

const HOUR_MS = 60 * 60 * 1000;

/** Makes a throwaway RSA key (node:crypto) and a self-signed certificate for it (node-forge). */
export function selfSignedTls(): TestTlsMaterial {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.publicKeyFromPem(publicKey);
  // A positive serial: the high bit of the first byte clear.
  certificate.serialNumber = `0${randomBytes(15).toString('hex')}`;
  certificate.validity.notBefore = new Date(Date.now() - HOUR_MS);
  certificate.validity.notAfter = new Date(Date.now() + 24 * HOUR_MS);
  const subject = [{ name: 'commonName', value: 'localhost' }];
  certificate.setSubject(subject);
  certificate.setIssuer(subject);
  certificate.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] },
  ]);
  certificate.sign(forge.pki.privateKeyFromPem(privateKey), forge.md.sha256.create());
  return { key: privateKey, cert: forge.pki.certificateToPem(certificate) };
}

/** Both ends of one TLS connection, handshake done. */
export interface TlsPair {
  /** The server's end of the connection. */
  readonly server: TLSSocket;
  /** The client's end, which verified the server against the test certificate only. */
  readonly client: TLSSocket;
  /** Destroys both ends and closes the listener. */
  close(): Promise<void>;
}

/** A TLS listener on 127.0.0.1 port 0 and one client connected to it, trusting only `material.cert`. */
export async function tlsPair(material: TestTlsMaterial): Promise<TlsPair> {
  const listener = createServer({ key: material.key, cert: material.cert });
  const serverSide = new Promise<TLSSocket>((resolve) => listener.once('secureConnection', resolve));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const { port } = listener.address() as AddressInfo;
  const client = connect({ host: '127.0.0.1', port, ca: material.cert, rejectUnauthorized: true });
  await new Promise<void>((resolve, reject) => {
    client.once('secureConnect', resolve);
    client.once('error', reject);
  });
  const server = await serverSide;
  return {
    server,
    client,
    close: async () => {
      client.destroy();
      server.destroy();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}

/** Reads '\n'-terminated lines of a raw socket in order (tests act as the other side of an RpcPeer with it). */
export class LineReader {
  private buffered = '';
  private readonly lines: string[] = [];
  private waiting: ((line: string | undefined) => void) | undefined;
  private ended = false;

  constructor(socket: TLSSocket) {
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => {
      this.buffered += text;
      for (let end = this.buffered.indexOf('\n'); end !== -1; end = this.buffered.indexOf('\n')) {
        this.lines.push(this.buffered.slice(0, end));
        this.buffered = this.buffered.slice(end + 1);
      }
      this.wake();
    });
    socket.on('close', () => {
      this.ended = true;
      this.wake();
    });
  }

  /** The next line parsed as JSON, or undefined once the socket closed with no more lines. */
  async next(): Promise<Record<string, unknown> | undefined> {
    const line = this.lines.shift() ?? (this.ended ? undefined : await new Promise<string | undefined>((resolve) => (this.waiting = resolve)));
    return line === undefined ? undefined : (JSON.parse(line) as Record<string, unknown>);
  }

  private wake(): void {
    const waiting = this.waiting;
    if (waiting === undefined) return;
    if (this.lines.length > 0) {
      this.waiting = undefined;
      waiting(this.lines.shift());
    } else if (this.ended) {
      this.waiting = undefined;
      waiting(undefined);
    }
  }
}
