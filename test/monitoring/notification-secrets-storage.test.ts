// Checks notification secrets in monitoring.sqlite through the monitoring service: never on disk in plaintext, redacted on reads, older plaintext encrypted on open, and bound to tenant and field.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { isStrataError } from '../../src/core/errors.js';
import { REDACTED_SECRET } from '../../src/monitoring/detail-secrets.js';
import { MONITORING_FILE_NAME } from '../../src/monitoring/monitoring-store.js';
import { openMonitoring, type MonitoringService } from '../../src/monitoring/monitoring-service.js';
import { expectNotOnDisk } from './secrets-on-disk.js';

const SERVICE_KEY = `sk${randomBytes(12).toString('hex')}`;
const HOOK = `https://hooks.example.com/services/${randomBytes(12).toString('hex')}`;

let dir: string;
let service: MonitoringService | undefined;
let pager = '';
let hook = '';

function open(): MonitoringService {
  service = openMonitoring({ dir, clock: new ManualClock(1_790_000_000_000) });
  return service;
}

function close(): void {
  service?.close();
  service = undefined;
}

/** The stored row of a notification, read with another connection. */
function storedRow(id: string): { details: Record<string, string>; updatedMs: number } {
  const db = new Database(join(dir, MONITORING_FILE_NAME), { readonly: true });
  const row = db.prepare('SELECT doc, updated_ms FROM mon_notification WHERE id = ?').get(id) as { doc: string; updated_ms: number };
  db.close();
  return { details: (JSON.parse(row.doc) as { details: Record<string, string> }).details, updatedMs: row.updated_ms };
}

/** Sets stored details with another connection, as an older version (or an attacker) would. */
function writeStoredDetails(id: string, details: Record<string, string>): void {
  const db = new Database(join(dir, MONITORING_FILE_NAME));
  const row = db.prepare('SELECT doc FROM mon_notification WHERE id = ?').get(id) as { doc: string };
  db.prepare('UPDATE mon_notification SET doc = ? WHERE id = ?').run(JSON.stringify({ ...JSON.parse(row.doc), details }), id);
  db.close();
}

function unreadableField(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    expect(isStrataError(error) && error.code).toBe('MONITORING_SECRET_UNREADABLE');
    return (error as { details: { field: unknown } }).details.field;
  }
  throw new Error('expected MONITORING_SECRET_UNREADABLE');
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-notification-secrets-'));
  const monitoring = open();
  pager = monitoring.notifications.createNotification('t1', { label: 'pager', type: 'incidentA', details: { service_key: SERVICE_KEY, service_endpoint: 'https://events.example.com/v1' } });
  hook = monitoring.notifications.createNotification('t1', { label: 'hook', type: 'webhook', details: { url: HOOK } });
});
afterEach(() => {
  close();
  rmSync(dir, { recursive: true, force: true });
});

describe('notification secrets at rest', () => {
  it('are encrypted in monitoring.sqlite (service_key, webhook url); other details stay readable', () => {
    expect(storedRow(pager).details).toMatchObject({ service_key: expect.stringMatching(/^enc:v1:[A-Za-z0-9_-]+$/), service_endpoint: 'https://events.example.com/v1' });
    expect(storedRow(hook).details['url']).toMatch(/^enc:v1:/);
    expectNotOnDisk(dir, SERVICE_KEY, HOOK);
    close();
    expectNotOnDisk(dir, SERVICE_KEY, HOOK);
  });

  it('read back redacted (one and list), and in plaintext only for the sender, also after reopening', () => {
    close();
    const monitoring = open();
    expect(monitoring.notifications.notification('t1', pager).doc.details).toEqual({ service_key: REDACTED_SECRET, service_endpoint: 'https://events.example.com/v1' });
    const listed = monitoring.notifications.listNotifications('t1', { limit: 10 }).values;
    expect(listed.map((n) => n.doc.details)).toEqual(expect.arrayContaining([{ url: REDACTED_SECRET }, { service_key: REDACTED_SECRET, service_endpoint: 'https://events.example.com/v1' }]));
    expect(monitoring.notifications.notificationWithSecrets('t1', pager).doc.details).toEqual({ service_key: SERVICE_KEY, service_endpoint: 'https://events.example.com/v1' });
    expect(monitoring.notifications.notificationWithSecrets('t1', hook).doc.details).toEqual({ url: HOOK });
  });

  it('stored in plaintext by an older version are encrypted when the file is opened (updated_at unchanged)', () => {
    close();
    const legacyKey = `legacy${randomBytes(8).toString('hex')}`;
    const legacyHook = `https://ops:${randomBytes(8).toString('hex')}@hooks.example.com/x`;
    writeStoredDetails(pager, { service_key: legacyKey });
    writeStoredDetails(hook, { url: legacyHook });
    const before = storedRow(pager);
    expect(before.details['service_key']).toBe(legacyKey);
    const monitoring = open();
    expect(storedRow(pager).details['service_key']).toMatch(/^enc:v1:/);
    expect(storedRow(pager).updatedMs).toBe(before.updatedMs);
    expect(storedRow(hook).details['url']).toMatch(/^enc:v1:/);
    expectNotOnDisk(dir, legacyKey, legacyHook);
    expect(monitoring.notifications.notification('t1', hook).doc.details).toEqual({ url: REDACTED_SECRET });
    expect(monitoring.notifications.notificationWithSecrets('t1', pager).doc.details).toEqual({ service_key: legacyKey });
    expect(monitoring.notifications.notificationWithSecrets('t1', hook).doc.details).toEqual({ url: legacyHook });
    close();
    expectNotOnDisk(dir, legacyKey, legacyHook);
  });

  it('a value copied to another notification field does not decrypt; a new value repairs it', () => {
    const key = storedRow(pager).details['service_key'] ?? '';
    close();
    writeStoredDetails(hook, { url: key });
    const monitoring = open();
    expect(unreadableField(() => monitoring.notifications.notificationWithSecrets('t1', hook))).toBe('notification.details.url');
    expect(monitoring.notifications.notification('t1', hook).doc.details).toEqual({ url: REDACTED_SECRET });
    monitoring.notifications.updateNotification('t1', hook, { type: 'webhook', details: { url: HOOK } });
    expect(monitoring.notifications.notificationWithSecrets('t1', hook).doc.details).toEqual({ url: HOOK });
  });

  it('moved to another tenant do not decrypt', () => {
    close();
    const db = new Database(join(dir, MONITORING_FILE_NAME));
    db.prepare("UPDATE mon_notification SET tenant = 't2'").run();
    db.close();
    const monitoring = open();
    expect(unreadableField(() => monitoring.notifications.notificationWithSecrets('t2', pager))).toBe('notification.details.service_key');
  });
});
