// Checks the update store on real files: publishing is atomic and immutable with private modes, the latest complete version wins numerically, bad names touch nothing.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UPDATE_VERSIONS_MAX } from '../../../src/agent/agent-limits.js';
import { UPDATE_CHANNEL_DEFAULT, UPDATE_DIR_NAME, UpdateStore } from '../../../src/agent/update/update-store.js';

let dataDir: string;
let store: UpdateStore;
const sig = Buffer.alloc(64, 1);

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'strata-update-store-'));
  store = new UpdateStore(dataDir);
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

function codeOf(action: () => void): string | undefined {
  try {
    action();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

describe('UpdateStore', () => {
  it('publishes both files under agent-updates/<channel>/<version> with private modes', () => {
    const dir = store.publish(UPDATE_CHANNEL_DEFAULT, '1.2.3', Buffer.from('bundle bytes'), sig);
    expect(dir).toBe(join(dataDir, UPDATE_DIR_NAME, 'stable', '1.2.3'));
    expect(readFileSync(join(dir, 'bundle'), 'utf8')).toBe('bundle bytes');
    expect(readFileSync(join(dir, 'bundle.sig')).equals(sig)).toBe(true);
    expect(statSync(join(dir, 'bundle')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'bundle.sig')).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dataDir, UPDATE_DIR_NAME)).mode & 0o777).toBe(0o700);
    // No temporary directory is left behind.
    expect(readdirSync(join(dataDir, UPDATE_DIR_NAME, 'stable'))).toEqual(['1.2.3']);
    expect(store.filePath('stable', '1.2.3', 'bundle')).toBe(join(dir, 'bundle'));
    expect(store.filePath('stable', '1.2.3', 'bundle.sig')).toBe(join(dir, 'bundle.sig'));
  });

  it('answers the numerically highest complete version of each channel', () => {
    expect(store.latestVersion('stable')).toBeNull();
    for (const version of ['1.9', '1.10', '1.2.3', '0.99']) store.publish('stable', version, Buffer.from(version), sig);
    store.publish('beta', '2', Buffer.from('2'), sig);
    expect(store.latestVersion('stable')).toBe('1.10');
    expect(store.latestVersion('beta')).toBe('2');
    expect(store.latestVersion('edge')).toBeNull();
    // A version without its signature, and entries that are no versions, are passed over.
    mkdirSync(join(dataDir, UPDATE_DIR_NAME, 'stable', '9.0'));
    writeFileSync(join(dataDir, UPDATE_DIR_NAME, 'stable', '9.0', 'bundle'), 'half');
    mkdirSync(join(dataDir, UPDATE_DIR_NAME, 'stable', '10.x'));
    mkdirSync(join(dataDir, UPDATE_DIR_NAME, 'stable', '.tmp-11'));
    expect(store.latestVersion('stable')).toBe('1.10');
    expect(store.filePath('stable', '9.0', 'bundle.sig')).toBeUndefined();
  });

  it('breaks ties between equal versions by their text, whatever the directory order', () => {
    store.publish('stable', '1.0', Buffer.from('a'), sig);
    store.publish('stable', '1', Buffer.from('b'), sig);
    store.publish('stable', '01', Buffer.from('c'), sig);
    expect(store.latestVersion('stable')).toBe('1.0');
  });

  it('refuses to publish a version twice, bad names, and an empty signature', () => {
    store.publish('stable', '1.0', Buffer.from('first'), sig);
    expect(codeOf(() => store.publish('stable', '1.0', Buffer.from('second'), sig))).toBe('CONFIG_INVALID');
    expect(readFileSync(join(dataDir, UPDATE_DIR_NAME, 'stable', '1.0', 'bundle'), 'utf8')).toBe('first');
    expect(codeOf(() => store.publish('Stable', '1.1', Buffer.from('x'), sig))).toBe('CONFIG_INVALID');
    expect(codeOf(() => store.publish('stable', '1.1.1.1.1', Buffer.from('x'), sig))).toBe('CONFIG_INVALID');
    expect(codeOf(() => store.publish('stable', '1.2', Buffer.from('x'), Buffer.alloc(0)))).toBe('CONFIG_INVALID');
    expect(store.latestVersion('stable')).toBe('1.0');
  });

  it('stops at UPDATE_VERSIONS_MAX entries: publishing is refused, and an overfull channel publishes nothing', () => {
    const channel = join(dataDir, UPDATE_DIR_NAME, 'stable');
    store.publish('stable', '1', Buffer.from('x'), sig);
    for (let i = 1; i < UPDATE_VERSIONS_MAX; i += 1) mkdirSync(join(channel, `.old-${i}`));
    expect(store.latestVersion('stable')).toBe('1');
    expect(codeOf(() => store.publish('stable', '2', Buffer.from('x'), sig))).toBe('CONFIG_INVALID');
    mkdirSync(join(channel, '.one-more'));
    expect(store.latestVersion('stable')).toBeNull();
  });

  it('holds nothing without a data directory', () => {
    const memory = new UpdateStore(undefined);
    expect(memory.latestVersion('stable')).toBeNull();
    expect(memory.filePath('stable', '1', 'bundle')).toBeUndefined();
  });

  it('gives no path for names that would leave the store, even when a file is there', () => {
    store.publish('stable', '1', Buffer.from('x'), sig);
    writeFileSync(join(dataDir, 'bundle'), 'outside');
    mkdirSync(join(dataDir, UPDATE_DIR_NAME, 'stable', '1', 'sub'));
    for (const [channel, version, file] of [
      ['..', '..', 'bundle'],
      ['stable', '..', 'bundle'],
      ['stable/../..', '1', 'bundle'],
      ['stable', '1/sub', 'bundle'],
      ['stable', '1', '../1/bundle'],
      ['stable', '1', 'bundle\0'],
      ['stable\0', '1', 'bundle'],
      ['stable', '1', 'sub'],
      ['/etc', '1', 'bundle'],
    ] as const) {
      expect(store.filePath(channel, version, file), `${channel} ${version} ${file}`).toBeUndefined();
    }
    expect(store.latestVersion('..')).toBeNull();
  });
});
