// Checks check secrets in monitoring.sqlite through the monitoring service: never on disk in plaintext, older plaintext encrypted on open, and a tampered value or another key failing loudly.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { isStrataError } from '../../src/core/errors.js';
import type { CheckCreate } from '../../src/monitoring/schemas/check-schema.js';
import { REDACTED_SECRET } from '../../src/monitoring/detail-secrets.js';
import { MONITORING_FILE_NAME } from '../../src/monitoring/monitoring-store.js';
import { openMonitoring, type MonitoringService } from '../../src/monitoring/monitoring-service.js';
import { TOKEN_KEY_FILE_NAME } from '../../src/monitoring/token-key.js';
import { expectNotOnDisk } from './secrets-on-disk.js';

const NOW_MS = 1_790_000_000_000;
const PASSWORD = `pw-${randomBytes(12).toString('hex')}`;
const BEARER = `Bearer ${randomBytes(12).toString('hex')}`;
const CHECK = {
  type: 'remote.http',
  details: { url: 'https://example.com/', auth_user: 'ops', auth_password: PASSWORD, headers: { Authorization: BEARER, Accept: 'text/html' } },
  monitoring_zones_poll: ['mzdfw'],
  target_alias: 'web',
} as unknown as CheckCreate;

let dir: string;
let clock: ManualClock;
let service: MonitoringService | undefined;
let entity = '';
let check = '';

function open(): MonitoringService {
  service = openMonitoring({ dir, clock });
  return service;
}

function close(): void {
  service?.close();
  service = undefined;
}

/** Every byte of the monitoring file and its write-ahead log. */
/** Changes the stored doc of the check with another connection (as an older version, or an attacker, would). */
function editStoredDetails(edit: (details: Record<string, any>) => void): void {
  const db = new Database(join(dir, MONITORING_FILE_NAME));
  const row = db.prepare('SELECT doc FROM mon_check WHERE id = ?').get(check) as { doc: string };
  const doc = JSON.parse(row.doc) as { details: Record<string, any> };
  edit(doc.details);
  db.prepare('UPDATE mon_check SET doc = ? WHERE id = ?').run(JSON.stringify(doc), check);
  db.close();
}

function storedRow(): { details: Record<string, any>; updatedMs: number } {
  const db = new Database(join(dir, MONITORING_FILE_NAME), { readonly: true });
  const row = db.prepare('SELECT doc, updated_ms FROM mon_check WHERE id = ?').get(check) as { doc: string; updated_ms: number };
  db.close();
  return { details: (JSON.parse(row.doc) as { details: Record<string, any> }).details, updatedMs: row.updated_ms };
}

function unreadableField(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    expect(isStrataError(error)).toBe(true);
    expect((error as { code: string }).code).toBe('MONITORING_SECRET_UNREADABLE');
    return (error as { details: { field: unknown } }).details.field;
  }
  throw new Error('expected MONITORING_SECRET_UNREADABLE');
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-secrets-'));
  clock = new ManualClock(NOW_MS);
  const monitoring = open();
  entity = monitoring.entities.createEntity('t1', { label: 'host', ip_addresses: { web: '192.0.2.1' } });
  check = monitoring.entities.createCheck('t1', entity, CHECK);
});
afterEach(() => {
  close();
  rmSync(dir, { recursive: true, force: true });
});

describe('check secrets at rest', () => {
  it('are encrypted in monitoring.sqlite: its bytes hold neither the password nor the bearer token, before and after close', () => {
    expect(storedRow().details['auth_password']).toMatch(/^enc:v1:[A-Za-z0-9_-]+$/);
    expect(storedRow().details['headers']['Authorization']).toMatch(/^enc:v1:/);
    expect(storedRow().details['headers']['Accept']).toBe('text/html');
    expectNotOnDisk(dir, PASSWORD, BEARER);
    close();
    expectNotOnDisk(dir, PASSWORD, BEARER);
  });

  it('read back redacted, and in plaintext only for the check runner, also after reopening', () => {
    close();
    const monitoring = open();
    expect(monitoring.entities.check('t1', entity, check).doc.details).toMatchObject({ auth_password: REDACTED_SECRET, headers: { Authorization: REDACTED_SECRET, Accept: 'text/html' } });
    expect(monitoring.entities.listChecks('t1', entity, { limit: 10 }).values[0]?.doc.details['auth_password']).toBe(REDACTED_SECRET);
    expect(monitoring.entities.checkWithSecrets('t1', entity, check).doc.details).toEqual({
      url: 'https://example.com/', method: 'GET', follow_redirects: true, include_body: false, auth_user: 'ops', auth_password: PASSWORD, headers: { Authorization: BEARER, Accept: 'text/html' },
    });
  });

  it('stored in plaintext by an older version still read, and are encrypted when the file is opened (updated_at unchanged)', () => {
    close();
    const legacy = `legacy-${randomBytes(8).toString('hex')}`;
    editStoredDetails((details) => {
      details['auth_password'] = legacy;
      details['headers']['Authorization'] = `${legacy}-header`;
    });
    const before = storedRow();
    expect(before.details['auth_password']).toBe(legacy);
    const monitoring = open();
    const after = storedRow();
    expect(after.details['auth_password']).toMatch(/^enc:v1:/);
    expect(after.details['headers']['Authorization']).toMatch(/^enc:v1:/);
    expect(after.updatedMs).toBe(before.updatedMs);
    // Checkpointed on open, with secure_delete: no copy of the plaintext is left in either file.
    expectNotOnDisk(dir, legacy, `${legacy}-header`);
    expect(monitoring.entities.check('t1', entity, check).doc.details['auth_password']).toBe(REDACTED_SECRET);
    expect(monitoring.entities.checkWithSecrets('t1', entity, check).doc.details).toMatchObject({ auth_password: legacy, headers: { Authorization: `${legacy}-header` } });
    close();
    expectNotOnDisk(dir, legacy, `${legacy}-header`);
  });

  it('altered in the file fail loudly for the runner, while reads still answer (redacted) and a new password repairs the check', () => {
    close();
    editStoredDetails((details) => {
      const encrypted = details['auth_password'] as string;
      const last = encrypted.at(-1) === 'A' ? 'B' : 'A';
      details['auth_password'] = `${encrypted.slice(0, -1)}${last}`;
    });
    const monitoring = open();
    expect(unreadableField(() => monitoring.entities.checkWithSecrets('t1', entity, check))).toBe('details.auth_password');
    expect(monitoring.entities.check('t1', entity, check).doc.details['auth_password']).toBe(REDACTED_SECRET);
    monitoring.entities.updateCheck('t1', entity, check, { details: { ...CHECK.details, auth_password: 'new-pw', headers: { Authorization: REDACTED_SECRET } } } as never);
    expect(monitoring.entities.checkWithSecrets('t1', entity, check).doc.details).toMatchObject({ auth_password: 'new-pw', headers: { Authorization: BEARER } });
  });

  it('moved to another tenant do not decrypt', () => {
    close();
    const db = new Database(join(dir, MONITORING_FILE_NAME));
    db.prepare("UPDATE mon_check SET tenant = 't2'").run();
    db.prepare("UPDATE mon_entity SET tenant = 't2'").run();
    db.close();
    const monitoring = open();
    expect(unreadableField(() => monitoring.entities.checkWithSecrets('t2', entity, check))).toBe('details.auth_password');
  });

  it('under another monitoring.key fail loudly (MONITORING_SECRET_UNREADABLE), never as garbage', () => {
    close();
    writeFileSync(join(dir, TOKEN_KEY_FILE_NAME), randomBytes(32), { mode: 0o600 });
    const monitoring = open();
    expect(unreadableField(() => monitoring.entities.checkWithSecrets('t1', entity, check))).toBe('details.auth_password');
    expect(() => monitoring.entities.checkWithSecrets('t1', entity, check)).toThrow(/monitoring\.key/);
    // Re-entering the secrets under the new key repairs the check.
    monitoring.entities.updateCheck('t1', entity, check, { details: { ...CHECK.details, auth_password: 'again', headers: { Authorization: 'Bearer again' } } } as never);
    expect(monitoring.entities.checkWithSecrets('t1', entity, check).doc.details).toMatchObject({ auth_password: 'again', headers: { Authorization: 'Bearer again' } });
  });

  it('an in-memory service encrypts too (under a key of its own)', () => {
    const memory = openMonitoring({ dir: undefined, clock });
    const e = memory.entities.createEntity('t1', { label: 'host', ip_addresses: { web: '192.0.2.1' } });
    const c = memory.entities.createCheck('t1', e, CHECK);
    expect(memory.entities.check('t1', e, c).doc.details['auth_password']).toBe(REDACTED_SECRET);
    expect(memory.entities.checkWithSecrets('t1', e, c).doc.details['auth_password']).toBe(PASSWORD);
    memory.close();
  });
});
