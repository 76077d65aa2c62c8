-- Strata identity schema: users, API keys and tokens. To be folded into schema.sql as the
-- "-- @file identity" section (src/identity/identity-schema.ts reads it from there when present).

-- @version 1

-- @file identity
-- identity.sqlite: users and their tokens. One writer: the server's main thread (the `strata user`
-- CLI may write too; SQLite's WAL and busy timeout serialise the two processes).

-- One row per user. Secrets are never stored: api_key_sha256 is SHA-256 of the API key, compared in
-- constant time. role is 'admin' (reads and writes its tenant) or 'observer' (reads only).
CREATE TABLE IF NOT EXISTS identity_user (
  id              TEXT PRIMARY KEY,
  username        TEXT NOT NULL UNIQUE,
  tenant          TEXT NOT NULL,
  role            TEXT NOT NULL CHECK (role IN ('admin', 'observer')),
  api_key_sha256  BLOB NOT NULL,
  created_ms      INTEGER NOT NULL
) STRICT;

-- One row per live token, keyed by SHA-256 of the token id so a stolen file yields no usable token.
-- Revocation deletes the row; expired rows are deleted when new tokens are issued.
CREATE TABLE IF NOT EXISTS identity_token (
  token_sha256  BLOB PRIMARY KEY,
  user_id       TEXT NOT NULL REFERENCES identity_user (id) ON DELETE CASCADE,
  issued_ms     INTEGER NOT NULL,
  expires_ms    INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- Purging expired tokens scans by expiry.
CREATE INDEX IF NOT EXISTS identity_token_expires ON identity_token (expires_ms);
