// Owns the agent's state directory: the guid that names this agent install across restarts, and which staged update is newest.
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, opendirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configError } from '../../core/config-error.js';
import { AGENT_STAGED_UPDATES_MAX } from '../agent-limits.js';
import { compareVersions, isVersion } from '../update/update-store.js';
import { STAGED_UPDATES_DIR_NAME } from './update-client.js';

/** File of the guid in the state directory. */
export const GUID_FILE_NAME = 'guid';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Creates the state directory (mode 0700: staged code lands there) if it is missing. */
export function ensureStateDir(stateDir: string): void {
  if (!existsSync(stateDir)) mkdirSync(stateDir, { recursive: true, mode: 0o700 });
}

/**
 * The guid stored in `<stateDir>/guid`, created (random UUID, written atomically, mode 0600) on first use. A file that
 * does not hold a UUID is CONFIG_INVALID: the guid names this install to the endpoint and is never replaced silently.
 */
export function loadOrCreateGuid(stateDir: string): string {
  ensureStateDir(stateDir);
  const path = join(stateDir, GUID_FILE_NAME);
  if (existsSync(path)) {
    const text = readFileSync(path, 'utf8').trim();
    if (!UUID.test(text)) throw configError(path, 'a UUID (delete the file to make a new one)', text.slice(0, 64));
    return text;
  }
  const guid = randomUUID();
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, `${guid}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
  return guid;
}

/** The newest version staged in `<stateDir>/updates` with both its bundle and signature, or undefined (looks at AGENT_STAGED_UPDATES_MAX entries at most). */
export function newestStagedVersion(stateDir: string): string | undefined {
  const dir = join(stateDir, STAGED_UPDATES_DIR_NAME);
  if (!existsSync(dir)) return undefined;
  let newest: string | undefined;
  const entries = opendirSync(dir);
  try {
    for (let seen = 0; seen < AGENT_STAGED_UPDATES_MAX; seen += 1) {
      const entry = entries.readSync();
      if (entry === null) break;
      const name = entry.name;
      if (!entry.isDirectory() || !isVersion(name) || !existsSync(join(dir, name, 'bundle')) || !existsSync(join(dir, name, 'bundle.sig'))) continue;
      if (newest === undefined || compareVersions(name, newest) > 0) newest = name;
    }
  } finally {
    entries.closeSync();
  }
  return newest;
}
