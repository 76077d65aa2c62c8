-- Strata on-disk schema. Every DDL statement of the engine lives here.
-- Sections start with "-- @file NAME" and apply to one kind of SQLite file; each file records the
-- version it was created with in PRAGMA user_version, and a file newer than this build is refused.
-- Version history:
--   1  catalog (series, sealed, rollup_due), partition (chunk) and identity (users, tokens) files.

-- @version 1

-- @file catalog
-- catalog.sqlite: the series registry and the engine's bookkeeping. One writer: the main thread.

-- One row per series (tenant + metric). Ids are dense small integers: they key chunks and WAL records.
CREATE TABLE IF NOT EXISTS series (
  id      INTEGER PRIMARY KEY,
  tenant  TEXT NOT NULL,
  metric  TEXT NOT NULL,
  unit    TEXT,
  UNIQUE (tenant, metric)
) STRICT;

-- One row per FULL chunk window (2 h) that has been sealed into chunks: every WAL record with
-- seq <= through_seq has its points of this window in the FULL partition file. Replay skips them.
CREATE TABLE IF NOT EXISTS sealed (
  window_start_ms INTEGER PRIMARY KEY,
  through_seq     INTEGER NOT NULL
) STRICT;

-- Rollup work that is due, recorded on disk so it survives a crash: the chunk of series_id that
-- starts at source_start_ms at resolution source_res changed, so the next coarser resolution must
-- be recomputed over that chunk's window. gen distinguishes a re-dirtied entry from the one a
-- running task saw, so finishing the task never erases newer work.
CREATE TABLE IF NOT EXISTS rollup_due (
  source_res      TEXT NOT NULL,
  source_start_ms INTEGER NOT NULL,
  series_id       INTEGER NOT NULL,
  gen             INTEGER NOT NULL,
  PRIMARY KEY (source_res, source_start_ms, series_id)
) STRICT, WITHOUT ROWID;

-- @file partition
-- partitions/<RES>/<start_ms>.sqlite: one resolution over one partition window. Retention deletes
-- the whole file once the window has expired.

-- One row per series and chunk window. key = series_id * 16 + slot, where slot is the chunk's index
-- inside the partition window (partition width / chunk width <= 16), so a point lookup is a rowid
-- lookup. data is a chunk (FULL: storage/chunk-codec.ts) or a bucket chunk (rollups:
-- storage/bucket-codec.ts); both begin with a format version byte.
CREATE TABLE IF NOT EXISTS chunk (
  key   INTEGER PRIMARY KEY,
  data  BLOB NOT NULL
) STRICT;

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
