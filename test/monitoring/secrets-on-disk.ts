// Test helper for the secret tests: the bytes of monitoring.sqlite and its write-ahead log, and the assertion that no secret is among them.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { MONITORING_FILE_NAME } from '../../src/monitoring/monitoring-store.js';

/** Every byte of monitoring.sqlite and its -wal under `dir`, back to back. */
export function monitoringFileBytes(dir: string): Buffer {
  const path = join(dir, MONITORING_FILE_NAME);
  return Buffer.concat([path, `${path}-wal`].filter((p) => existsSync(p)).map((p) => readFileSync(p)));
}

/** Asserts the files hold something, and that no secret is in them as UTF-8 or UTF-16. */
export function expectNotOnDisk(dir: string, ...secrets: string[]): void {
  const bytes = monitoringFileBytes(dir);
  expect(bytes.length).toBeGreaterThan(0);
  for (const secret of secrets) {
    expect(bytes.includes(Buffer.from(secret, 'utf8')), `${secret} (utf8) is in monitoring.sqlite`).toBe(false);
    expect(bytes.includes(Buffer.from(secret, 'utf16le')), `${secret} (utf16) is in monitoring.sqlite`).toBe(false);
  }
}
