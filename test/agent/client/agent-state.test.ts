// Tests the agent's state directory: the guid kept across restarts (file modes asserted) and the newest staged update.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StrataError } from '../../../src/core/errors.js';
import { GUID_FILE_NAME, loadOrCreateGuid, newestStagedVersion } from '../../../src/agent/client/agent-state.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-agent-state-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('guid', () => {
  it('is created once, as a UUID in a 0600 file of a 0700 directory, and read back on every later start', () => {
    const stateDir = join(dir, 'state');
    const guid = loadOrCreateGuid(stateDir);
    expect(guid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(statSync(stateDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(stateDir, GUID_FILE_NAME)).mode & 0o777).toBe(0o600);
    expect(loadOrCreateGuid(stateDir)).toBe(guid);
    expect(loadOrCreateGuid(join(dir, 'another'))).not.toBe(guid);
  });

  it('is never replaced silently: a file that holds no UUID is CONFIG_INVALID', () => {
    writeFileSync(join(dir, GUID_FILE_NAME), 'not a guid\n');
    expect(() => loadOrCreateGuid(dir)).toThrow(StrataError);
    expect(() => loadOrCreateGuid(dir)).toThrow(/delete the file/);
  });
});

describe('newestStagedVersion', () => {
  function stage(version: string, files: readonly string[] = ['bundle', 'bundle.sig']): void {
    mkdirSync(join(dir, 'updates', version), { recursive: true });
    for (const file of files) writeFileSync(join(dir, 'updates', version, file), 'x');
  }

  it('is undefined with nothing staged', () => {
    expect(newestStagedVersion(dir)).toBeUndefined();
  });

  it('is the numerically newest version staged with both its files', () => {
    stage('1.9.0');
    stage('1.10.0');
    stage('2.0.0', ['bundle']);
    stage('not-a-version');
    expect(newestStagedVersion(dir)).toBe('1.10.0');
  });
});
