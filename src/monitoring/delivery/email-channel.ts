// Owns the email and technicalContactsEmail channels: one pooled SMTP transport each, the message, and SMTP failures as outcomes.
import nodemailer from 'nodemailer';
import {
  ALERT_SUBJECT_LENGTH_MAX,
  CHANNEL_ERROR_TEXT_LENGTH_MAX,
  SMTP_POOL_CONNECTIONS_MAX,
  SMTP_POOL_IDLE_MS,
  SMTP_POOL_MESSAGES_PER_CONNECTION_MAX,
  SMTP_SENDS_PENDING_MAX,
  SMTP_TIMEOUT_MS,
} from '../monitoring-limits.js';
import { alertBodyLines, alertSubject, alertSummary, EVENT_ID_HEADER, singleLine, truncateText, TXN_ID_HEADER } from './alert-text.js';
import type { Channel, ChannelOutcome, DeliveryJob } from './channel-types.js';
import type { SmtpConfig } from './delivery-config.js';

/** An email channel; `close()` ends its pooled SMTP connections (call it when delivery stops). */
export interface EmailChannel extends Channel {
  readonly type: 'email' | 'technicalContactsEmail';
  close(): void;
}

/** The message of one job, without sender and recipients. */
export interface AlertMessage {
  readonly subject: string;
  readonly text: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** An SMTP failure as nodemailer reports it. */
interface SmtpError {
  readonly code?: unknown;
  readonly responseCode?: unknown;
  readonly message?: unknown;
}

// Failures without an SMTP reply that sending the same message again cannot fix.
const PERMANENT_CODES = new Set(['EENVELOPE', 'ECONFIG', 'EFILEACCESS', 'EURLACCESS', 'EMAXRECIPIENTS']);

function failure(retryable: boolean, error: string): ChannelOutcome {
  return { ok: false, retryable, error: truncateText(singleLine(error), CHANNEL_ERROR_TEXT_LENGTH_MAX) };
}

/** Subject, text body and headers of the alert email of a job. */
export function alertMessage(job: DeliveryJob): AlertMessage {
  const summary = alertSummary(job.event);
  return {
    subject: truncateText(alertSubject(summary), ALERT_SUBJECT_LENGTH_MAX),
    text: `${alertBodyLines(summary).join('\n')}\n`,
    headers: { [TXN_ID_HEADER]: singleLine(job.txnId), [EVENT_ID_HEADER]: singleLine(job.event.event_id) },
  };
}

/**
 * An SMTP failure as an outcome. RFC 5321: 4yz replies are transient, 5yz permanent, except 503
 * (bad sequence of commands), which says the session was in the wrong state rather than that the
 * message was refused. Failures without a reply (connection refused, timeouts, a dropped
 * connection, the attempt's signal) are retryable unless the message itself is unusable.
 */
export function smtpFailure(err: unknown, signal: AbortSignal): ChannelOutcome {
  const e: SmtpError = typeof err === 'object' && err !== null ? (err as SmtpError) : {};
  const message = typeof e.message === 'string' ? e.message : String(err);
  if (signal.aborted || e.code === 'EABORT') return failure(true, 'SMTP send timed out (the attempt was aborted)');
  if (typeof e.responseCode === 'number') {
    const code = e.responseCode;
    const permanent = code >= 500 && code < 600 && code !== 503;
    return failure(!permanent, `SMTP server replied ${code}: ${message}`);
  }
  const code = typeof e.code === 'string' ? e.code : 'error';
  if (PERMANENT_CODES.has(code)) return failure(false, `SMTP message refused (${code}): ${message}`);
  return failure(true, `SMTP connection failed (${code}): ${message}`);
}

/** Recipients of a job: the notification's address, or the account's technical contacts. */
function recipientsOf(type: EmailChannel['type'], job: DeliveryJob): readonly string[] | ChannelOutcome {
  if (type === 'technicalContactsEmail') {
    return job.account.technicalContacts.length > 0 ? job.account.technicalContacts : failure(false, 'no technical contacts on the account');
  }
  const address = job.notification.details.address;
  return typeof address === 'string' && address !== '' ? [address] : failure(false, 'the notification has no address');
}

function unconfigured(type: EmailChannel['type']): EmailChannel {
  return {
    type,
    deliver: () => Promise.resolve(failure(false, 'no SMTP server configured (--smtp-host)')),
    close: () => undefined,
  };
}

/** What the server accepted, as the outcome's note. */
function sentNote(info: { accepted?: unknown; rejected?: unknown }, count: number): string {
  const accepted = Array.isArray(info.accepted) ? info.accepted.length : count;
  const rejected = Array.isArray(info.rejected) ? info.rejected.length : 0;
  return `accepted by the SMTP server for ${accepted} recipient(s)${rejected > 0 ? `, ${rejected} rejected` : ''}`;
}

/**
 * The email (to details.address) or technicalContactsEmail (to the account's technical contacts)
 * channel. One pooled transport per channel, at most SMTP_POOL_CONNECTIONS_MAX connections and
 * SMTP_SENDS_PENDING_MAX sends pending. Each send carries the attempt's signal: nodemailer removes
 * a queued message or closes the connection delivering it when the signal aborts. Without an SMTP
 * server configured every job fails, not retryable.
 */
export function createEmailChannel(smtp: SmtpConfig | undefined, type: 'email' | 'technicalContactsEmail'): EmailChannel {
  if (smtp === undefined) return unconfigured(type);
  const transport = nodemailer.createTransport({
    pool: true,
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    maxConnections: SMTP_POOL_CONNECTIONS_MAX,
    maxMessages: SMTP_POOL_MESSAGES_PER_CONNECTION_MAX,
    idleTimeout: SMTP_POOL_IDLE_MS,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
    disableFileAccess: true,
    disableUrlAccess: true,
    logger: false,
  });
  let pending = 0;
  const deliver = async (job: DeliveryJob, signal: AbortSignal): Promise<ChannelOutcome> => {
    const recipients = recipientsOf(type, job);
    if (!Array.isArray(recipients)) return recipients as ChannelOutcome;
    if (signal.aborted) return failure(true, 'SMTP send timed out (the attempt was aborted)');
    if (pending >= SMTP_SENDS_PENDING_MAX) return failure(true, `the email channel has ${SMTP_SENDS_PENDING_MAX} sends pending`);
    const message = alertMessage(job);
    pending += 1;
    try {
      const info = await transport.sendMail({
        from: smtp.from,
        to: [...recipients],
        subject: message.subject,
        text: message.text,
        headers: { ...message.headers },
        signal,
        disableFileAccess: true,
        disableUrlAccess: true,
      });
      return { ok: true, detail: sentNote(info, recipients.length) };
    } catch (err) {
      return smtpFailure(err, signal);
    } finally {
      pending -= 1;
    }
  };
  return { type, deliver, close: () => transport.close() };
}
