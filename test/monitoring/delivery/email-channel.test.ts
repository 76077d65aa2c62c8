// Tests the email and technicalContactsEmail channels against a real SMTP server (smtp-server) on loopback.
import type { AddressInfo } from 'node:net';
import { createServer as createNetServer } from 'node:net';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmailChannel, type EmailChannel } from '../../../src/monitoring/delivery/email-channel.js';
import { SMTP_POOL_CONNECTIONS_MAX } from '../../../src/monitoring/monitoring-limits.js';
import { sampleEvent, sampleJob } from './channel-jobs.js';

/** A message as the server received it. */
interface Received {
  readonly mailFrom: string;
  readonly rcptTo: string[];
  readonly headers: Map<string, string>;
  readonly body: string;
}

/** How the server answers: a reply code for RCPT TO or DATA, or a DATA that never answers. */
interface Behaviour {
  rcptCode?: number;
  dataCode?: number;
  stallData?: boolean;
}

interface TestSmtp {
  readonly port: number;
  readonly messages: Received[];
  readonly behaviour: Behaviour;
  connections: number;
  close(): Promise<void>;
}

function smtpError(code: number): Error & { responseCode: number } {
  return Object.assign(new Error(code >= 500 ? 'Mailbox unavailable' : 'Try again later'), { responseCode: code });
}

function decodeQuotedPrintable(text: string): string {
  const bytes = text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** Headers (unfolded, names lower-cased) and the decoded text body of a raw single-part message. */
function parseMessage(raw: string): { headers: Map<string, string>; body: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const headers = new Map<string, string>();
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  const body = raw.slice(split + 4);
  const encoding = headers.get('content-transfer-encoding') ?? '7bit';
  return { headers, body: encoding === 'quoted-printable' ? decodeQuotedPrintable(body) : body.replace(/\r\n/g, '\n') };
}

async function startSmtp(): Promise<TestSmtp> {
  const messages: Received[] = [];
  const behaviour: Behaviour = {};
  const state = { connections: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onConnect(_session, callback) {
      state.connections += 1;
      callback();
    },
    onRcptTo(_address, _session, callback) {
      callback(behaviour.rcptCode === undefined ? undefined : smtpError(behaviour.rcptCode));
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (behaviour.stallData === true) return;
        if (behaviour.dataCode !== undefined) return callback(smtpError(behaviour.dataCode));
        const envelope = session.envelope;
        const mailFrom = envelope.mailFrom === false ? '' : envelope.mailFrom.address;
        messages.push({ mailFrom, rcptTo: envelope.rcptTo.map((r) => r.address), ...parseMessage(Buffer.concat(chunks).toString('utf8')) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    messages,
    behaviour,
    get connections() {
      return state.connections;
    },
    set connections(value: number) {
      state.connections = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const open: { smtp: TestSmtp[]; channels: EmailChannel[] } = { smtp: [], channels: [] };

async function setup(type: 'email' | 'technicalContactsEmail'): Promise<{ smtp: TestSmtp; channel: EmailChannel }> {
  const smtp = await startSmtp();
  const channel = createEmailChannel({ host: '127.0.0.1', port: smtp.port, secure: false, from: 'strata@monitor.test' }, type);
  open.smtp.push(smtp);
  open.channels.push(channel);
  return { smtp, channel };
}

function signal(): AbortSignal {
  return AbortSignal.timeout(10_000);
}

afterEach(async () => {
  for (const channel of open.channels.splice(0)) channel.close();
  await Promise.all(open.smtp.splice(0).map((s) => s.close()));
});

describe('email channel', () => {
  it('delivers the alert to the notification address with state, message, time, ids, metrics and the txn header', async () => {
    const { smtp, channel } = await setup('email');
    const outcome = await channel.deliver(sampleJob('email', { details: { address: 'oncall@example.test' } }), signal());
    expect(outcome).toEqual({ ok: true, detail: 'accepted by the SMTP server for 1 recipient(s)' });
    expect(smtp.messages).toHaveLength(1);
    const message = smtp.messages[0]!;
    expect(message.mailFrom).toBe('strata@monitor.test');
    expect(message.rcptTo).toEqual(['oncall@example.test']);
    expect(message.headers.get('subject')).toBe('[CRITICAL] web-1: High latency on HTTP home');
    expect(message.headers.get('to')).toBe('oncall@example.test');
    expect(message.headers.get('x-strata-txn-id')).toBe('.rh-deliver-42');
    expect(message.headers.get('x-strata-event-id')).toBe(`acme:enWeb1:alHigh:chHome:1735787045000:CRITICAL`);
    expect(message.body).toContain('Alarm "High latency" is CRITICAL (was OK).');
    expect(message.body).toContain('Status: HTTP status 500 from www.example.test');
    expect(message.body).toContain('Time: 2025-01-02T03:04:05.000Z');
    expect(message.body).toContain('Entity: web-1 (enWeb1)');
    expect(message.body).toContain('Check: HTTP home (chHome, remote.http)');
    expect(message.body).toContain('Alarm: High latency (alHigh)');
    expect(message.body).toContain('  mzdfw.duration: 1234 milliseconds (type I)');
    expect(message.body).toContain('  mzord: CRITICAL at 2025-01-02T03:04:04.000Z: HTTP status 500');
  });

  it('sends a recovery with its state and message, without a previous state the event lacks', async () => {
    const { smtp, channel } = await setup('email');
    const event = sampleEvent({ state: 'OK', previousState: null, status: 'All good: 200 in 12 ms' });
    const outcome = await channel.deliver(sampleJob('email', { details: { address: 'oncall@example.test' }, event }), signal());
    expect(outcome.ok).toBe(true);
    const message = smtp.messages[0]!;
    expect(message.headers.get('subject')).toBe('[OK] web-1: High latency on HTTP home');
    expect(message.body).toContain('Alarm "High latency" is OK.');
    expect(message.body).toContain('Status: All good: 200 in 12 ms');
  });

  it('keeps user labels on one subject line: a CRLF in a label adds no header', async () => {
    const { smtp, channel } = await setup('email');
    const event = sampleEvent({ entityLabel: 'evil\r\nBcc: thief@example.test', alarmLabel: 'x'.repeat(400) });
    const outcome = await channel.deliver(sampleJob('email', { details: { address: 'oncall@example.test' }, event }), signal());
    expect(outcome.ok).toBe(true);
    const message = smtp.messages[0]!;
    expect(message.rcptTo).toEqual(['oncall@example.test']);
    expect(message.headers.has('bcc')).toBe(false);
    const subject = message.headers.get('subject')!;
    expect(subject.startsWith('[CRITICAL] evil Bcc: thief@example.test: xxx')).toBe(true);
    expect(subject.length).toBeLessThanOrEqual(200);
  });

  it('sends technicalContactsEmail to every technical contact of the account, not to a details address', async () => {
    const { smtp, channel } = await setup('technicalContactsEmail');
    const contacts = ['ops@example.test', 'cto@example.test'];
    const outcome = await channel.deliver(sampleJob('technicalContactsEmail', { contacts, details: { address: 'nobody@example.test' } }), signal());
    expect(outcome).toEqual({ ok: true, detail: 'accepted by the SMTP server for 2 recipient(s)' });
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0]!.rcptTo).toEqual(contacts);
    expect(smtp.messages[0]!.headers.get('to')).toBe('ops@example.test, cto@example.test');
  });

  it('fails technicalContactsEmail without contacts, not retryable, and sends nothing', async () => {
    const { smtp, channel } = await setup('technicalContactsEmail');
    const outcome = await channel.deliver(sampleJob('technicalContactsEmail', { contacts: [] }), signal());
    expect(outcome).toEqual({ ok: false, retryable: false, error: 'no technical contacts on the account' });
    expect(smtp.connections).toBe(0);
  });

  it.each([
    ['RCPT TO', 'rcptCode'],
    ['DATA', 'dataCode'],
  ] as const)('retries a 451 reply to %s and gives up on a 550 reply', async (_command, key) => {
    const { smtp, channel } = await setup('email');
    const job = sampleJob('email', { details: { address: 'oncall@example.test' } });
    smtp.behaviour[key] = 451;
    const transient = await channel.deliver(job, signal());
    expect(transient).toMatchObject({ ok: false, retryable: true });
    expect(!transient.ok && transient.error).toContain('451');
    smtp.behaviour[key] = 550;
    const permanent = await channel.deliver(job, signal());
    expect(permanent).toMatchObject({ ok: false, retryable: false });
    expect(!permanent.ok && permanent.error).toContain('550');
    smtp.behaviour[key] = undefined;
    expect((await channel.deliver(job, signal())).ok).toBe(true);
    expect(smtp.messages).toHaveLength(1);
  });

  it('fails every job without an SMTP server configured, not retryable, naming the flag', async () => {
    for (const type of ['email', 'technicalContactsEmail'] as const) {
      const channel = createEmailChannel(undefined, type);
      const outcome = await channel.deliver(sampleJob(type, { details: { address: 'a@example.test' }, contacts: ['b@example.test'] }), signal());
      expect(outcome).toEqual({ ok: false, retryable: false, error: 'no SMTP server configured (--smtp-host)' });
      channel.close();
    }
  });

  it('retries when the SMTP server cannot be reached', async () => {
    const holder = createNetServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as AddressInfo).port;
    await new Promise<void>((resolve) => holder.close(() => resolve()));
    const channel = createEmailChannel({ host: '127.0.0.1', port, secure: false, from: 'strata@monitor.test' }, 'email');
    open.channels.push(channel);
    const outcome = await channel.deliver(sampleJob('email', { details: { address: 'oncall@example.test' } }), signal());
    expect(outcome).toMatchObject({ ok: false, retryable: true });
    expect(!outcome.ok && outcome.error).toContain('ECONNREFUSED');
  });

  it('settles when the attempt signal aborts a stalled DATA, and the channel keeps working', async () => {
    const { smtp, channel } = await setup('email');
    const job = sampleJob('email', { details: { address: 'oncall@example.test' } });
    smtp.behaviour.stallData = true;
    const started = performance.now();
    const outcome = await channel.deliver(job, AbortSignal.timeout(300));
    const elapsedMs = performance.now() - started;
    expect(outcome).toMatchObject({ ok: false, retryable: true });
    expect(elapsedMs).toBeLessThan(2_000);
    smtp.behaviour.stallData = false;
    expect((await channel.deliver(job, signal())).ok).toBe(true);
    expect(smtp.messages).toHaveLength(1);
  });

  it('sends concurrent jobs over at most SMTP_POOL_CONNECTIONS_MAX pooled connections', async () => {
    const { smtp, channel } = await setup('email');
    const jobs = Array.from({ length: 20 }, (_, i) => sampleJob('email', { details: { address: `user${i}@example.test` } }));
    const outcomes = await Promise.all(jobs.map((job) => channel.deliver(job, signal())));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(smtp.messages.map((m) => m.rcptTo[0]).sort()).toEqual(jobs.map((j) => j.notification.details.address).sort());
    expect(smtp.connections).toBeGreaterThan(0);
    expect(smtp.connections).toBeLessThanOrEqual(SMTP_POOL_CONNECTIONS_MAX);
  });
});
