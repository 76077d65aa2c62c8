// Owns the server's monitoring secret key (agent token values are derived with it, check secrets encrypted under a key derived from it): monitoring.key in the data directory, mode 0600.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Name of the key file inside the data directory. */
export const TOKEN_KEY_FILE_NAME = 'monitoring.key';
/** Bytes of key: 256 bits for HMAC-SHA-256. */
const TOKEN_KEY_BYTES = 32;

/**
 * The key of `dir` (created on first use), or a fresh key when `dir` is undefined. It lives beside,
 * not inside, monitoring.sqlite, so a copy of the database alone yields no usable agent token and
 * no check secret (secret-box.ts).
 */
export function loadTokenKey(dir: string | undefined): Buffer {
  if (dir === undefined) return randomBytes(TOKEN_KEY_BYTES);
  const path = join(dir, TOKEN_KEY_FILE_NAME);
  if (existsSync(path)) {
    const key = readFileSync(path);
    if (key.length !== TOKEN_KEY_BYTES) throw new Error(`${path} must hold exactly ${TOKEN_KEY_BYTES} bytes`);
    return key;
  }
  const key = randomBytes(TOKEN_KEY_BYTES);
  // 'wx' fails rather than overwrite a key another process wrote first.
  writeFileSync(path, key, { mode: 0o600, flag: 'wx' });
  return key;
}
