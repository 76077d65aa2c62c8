-- Strata on-disk schema. Every DDL statement of the engine lives here.
-- Sections start with "-- @file NAME" and apply to one kind of SQLite file; each file records the
-- version it was created with in PRAGMA user_version, and a file newer than this build is refused.
-- Version history:
--   1  catalog (series, sealed, rollup_due), partition (chunk) and identity (users, tokens) files.
--   2  catalog: partition_file and damaged_partition (issue 10). The migration is this file itself:
--      a file below this version gets its section run again, and every statement is CREATE ... IF
--      NOT EXISTS, so an older catalog gains the two tables (empty; the store fills partition_file
--      in at its next open by adopting the files it finds) and every other file only has its
--      user_version raised. Nothing existing changes shape, so no data is rewritten.
--   3  monitoring: mon_account, mon_alarm_state, mon_outbox and mon_delivery_attempt (issue 11, the
--      monitoring runtime). Same migration as version 2: an older monitoring.sqlite gets its section
--      run again and gains the four tables empty; every other file only has its user_version raised.
--   4  monitoring: mon_agent_connection is dropped (live agent connections are held in memory by the
--      agent endpoint's process: they exist only while connected, spec 2.2) and the expression index
--      mon_entity_agent is added (the entities an agent is bound to, for its check schedule). Same
--      migration: an older monitoring.sqlite runs its section again, whose DROP TABLE IF EXISTS
--      removes the table (its rows described connections of a process that is gone) and whose
--      CREATE INDEX IF NOT EXISTS builds the index over the existing entities; no entity changes.
--   5  monitoring: mon_suppression, mon_suppression_log, mon_notification_history and mon_audit
--      (issue 19, operating the monitoring). Same migration as version 3: an older monitoring.sqlite
--      runs its section again and gains the four tables empty; nothing existing changes shape. The
--      index mon_alarm_plan becomes mon_alarm_plan_id (tenant, plan_id, id), built over the alarms.

-- @version 5

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

-- One row per partition file that must exist: a row is written in the same transaction that
-- records a write into the file (the seal marker, the rollup's due bookkeeping), after the file's
-- own commit, so chunks is what the file held at its last recorded write. After a crash the file
-- may hold more chunks than recorded (its write committed, the catalog's did not); never fewer:
-- fewer, or no file at all, is damage. first_seq (FULL only) is the lowest WAL seq whose points
-- were sealed into the file, NULL when unknown (a file adopted from a data directory written before
-- version 2): `strata check --repair` restores a damaged FULL file from the WAL only when every
-- record from first_seq on is still there. Retention deletes the row with the file.
CREATE TABLE IF NOT EXISTS partition_file (
  res        TEXT NOT NULL,
  start_ms   INTEGER NOT NULL,
  chunks     INTEGER NOT NULL,
  first_seq  INTEGER,
  PRIMARY KEY (res, start_ms)
) STRICT, WITHOUT ROWID;

-- Partitions found damaged (reason: missing, empty, header, truncated, corrupt, chunks) or given up
-- on by a repair (lost), so they are not verified again on every query and every query that needs
-- one fails naming its range. detail is the sentence shown to people. `strata check --repair`
-- deletes a row once the partition is rebuilt, restored or, with --accept-loss, given up on.
CREATE TABLE IF NOT EXISTS damaged_partition (
  res          TEXT NOT NULL,
  start_ms     INTEGER NOT NULL,
  reason       TEXT NOT NULL,
  detail       TEXT NOT NULL,
  detected_ms  INTEGER NOT NULL,
  PRIMARY KEY (res, start_ms)
) STRICT, WITHOUT ROWID;

-- @file partition
-- partitions/<RES>/<start_ms>.sqlite: one resolution over one partition window. Retention deletes
-- the whole file once the window has expired. A file is verified before use (storage/
-- partition-header.ts, partition-verify.ts): its header (magic, page size, whole pages), then,
-- once per process on first use, PRAGMA quick_check and its chunk count against partition_file.
-- Files are never created by a read: a missing file the catalog lists is damage, not emptiness.

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

-- @file feeds
-- feeds.sqlite: the event feeds (issue 5). Adding this file needed no version bump: no existing
-- file changes shape. One writer: the server; publishers inside it append, readers page.

-- One row per published entry. seq orders a feed (newest = highest seq), so paging never depends
-- on clock ties; id is the public urn:uuid. categories is a JSON array of category terms, already
-- carrying the tid:, rgn: and type: terms the service adds. content_type and content hold the
-- entry's content as text (NULL when the entry has none). Times are integer ms since the epoch.
CREATE TABLE IF NOT EXISTS feed_entry (
  seq           INTEGER PRIMARY KEY,
  id            TEXT NOT NULL UNIQUE,
  tenant        TEXT NOT NULL,
  feed          TEXT NOT NULL,
  title         TEXT NOT NULL,
  categories    TEXT NOT NULL,
  content_type  TEXT,
  content       TEXT,
  updated_ms    INTEGER NOT NULL
) STRICT;

-- Every page query is "this tenant's feed, in seq order, from a point": one index serves them all.
CREATE INDEX IF NOT EXISTS feed_entry_by_feed ON feed_entry (tenant, feed, seq);

-- @file dns
-- dns.sqlite: the domain-listing data (issue 5), loaded by `strata dns import` and read by the
-- /dns/v1.0 API. Added without a version bump for the same reason as feeds.sqlite.

-- The integer accountId of each tenant, assigned on first import (tenants are strings, the API's
-- accountId is an integer).
CREATE TABLE IF NOT EXISTS dns_account (
  account_id  INTEGER PRIMARY KEY,
  tenant      TEXT NOT NULL UNIQUE
) STRICT;

-- One row per domain; a subdomain is a domain with parent_id set (it is listed under /domains
-- too, as the reference lists subdomains among an account's domains). Names are unique per tenant.
-- created_ms and updated_ms are whole seconds (ms % 1000 = 0): both date formats show .000 or none.
CREATE TABLE IF NOT EXISTS dns_domain (
  id          INTEGER PRIMARY KEY,
  tenant      TEXT NOT NULL,
  parent_id   INTEGER REFERENCES dns_domain (id),
  name        TEXT NOT NULL,
  email       TEXT NOT NULL,
  ttl         INTEGER NOT NULL,
  comment     TEXT,
  created_ms  INTEGER NOT NULL,
  updated_ms  INTEGER NOT NULL,
  UNIQUE (tenant, name)
) STRICT;

CREATE INDEX IF NOT EXISTS dns_domain_by_parent ON dns_domain (parent_id, id);

-- One row per record of a domain; the API shows the id as "<type>-<id>" (A-6817754).
CREATE TABLE IF NOT EXISTS dns_record (
  id          INTEGER PRIMARY KEY,
  domain_id   INTEGER NOT NULL REFERENCES dns_domain (id),
  type        TEXT NOT NULL,
  name        TEXT NOT NULL,
  data        TEXT NOT NULL,
  ttl         INTEGER NOT NULL,
  priority    INTEGER,
  comment     TEXT,
  created_ms  INTEGER NOT NULL,
  updated_ms  INTEGER NOT NULL
) STRICT;

CREATE INDEX IF NOT EXISTS dns_record_by_domain ON dns_record (domain_id, id);

-- @file monitoring
-- monitoring.sqlite (issue 4; a new file, so no version bump): the monitoring API's objects (src/monitoring/monitoring-store.ts and the other
-- *-store.ts files there). One writer: the server's main thread. Every table is keyed by tenant
-- first, so one tenant's rows are one index range and no query can reach another tenant's rows.
-- Ids carry the reference prefixes (en, ch, al, nt, np, at) and sort lexicographically, which is
-- the order of every list; doc is the object's JSON fields besides id, references and times.

CREATE TABLE IF NOT EXISTS mon_entity (
  tenant      TEXT NOT NULL,
  id          TEXT NOT NULL,
  doc         TEXT NOT NULL,
  created_ms  INTEGER NOT NULL,
  updated_ms  INTEGER NOT NULL,
  PRIMARY KEY (tenant, id)
) STRICT, WITHOUT ROWID;
-- The entities an agent is bound to (doc.agent_id names it), read when the agent connects and when
-- its schedule changes (version 4). The index entries end with the key (tenant, id), so the
-- lookup "tenant, agent_id, by id" is one range scan without a sort. A query uses it only when it
-- spells the expression exactly as here: json_extract(doc, '$.agent_id').
CREATE INDEX IF NOT EXISTS mon_entity_agent ON mon_entity (tenant, json_extract(doc, '$.agent_id'));

-- Checks and alarms belong to an entity; their lists are per entity.
CREATE TABLE IF NOT EXISTS mon_check (
  tenant      TEXT NOT NULL,
  entity_id   TEXT NOT NULL,
  id          TEXT NOT NULL,
  doc         TEXT NOT NULL,
  created_ms  INTEGER NOT NULL,
  updated_ms  INTEGER NOT NULL,
  PRIMARY KEY (tenant, entity_id, id)
) STRICT, WITHOUT ROWID;

-- check_id and plan_id are columns so "is this check or plan still used" is an index lookup.
CREATE TABLE IF NOT EXISTS mon_alarm (
  tenant      TEXT NOT NULL,
  entity_id   TEXT NOT NULL,
  id          TEXT NOT NULL,
  check_id    TEXT NOT NULL,
  plan_id     TEXT NOT NULL,
  doc         TEXT NOT NULL,
  created_ms  INTEGER NOT NULL,
  updated_ms  INTEGER NOT NULL,
  PRIMARY KEY (tenant, entity_id, id)
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS mon_alarm_check ON mon_alarm (tenant, check_id);
-- Alarms by plan in id order (the alarmsByNp view pages it; plan deletes count it). Version 5
-- replaced mon_alarm_plan (tenant, plan_id), whose pages needed a sort.
DROP INDEX IF EXISTS mon_alarm_plan;
CREATE INDEX IF NOT EXISTS mon_alarm_plan_id ON mon_alarm (tenant, plan_id, id);

CREATE TABLE IF NOT EXISTS mon_notification (
  tenant      TEXT NOT NULL,
  id          TEXT NOT NULL,
  doc         TEXT NOT NULL,
  created_ms  INTEGER NOT NULL,
  updated_ms  INTEGER NOT NULL,
  PRIMARY KEY (tenant, id)
) STRICT, WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS mon_plan (
  tenant      TEXT NOT NULL,
  id          TEXT NOT NULL,
  doc         TEXT NOT NULL,
  created_ms  INTEGER NOT NULL,
  updated_ms  INTEGER NOT NULL,
  PRIMARY KEY (tenant, id)
) STRICT, WITHOUT ROWID;

-- Which notifications a plan names (any state), so deleting a used notification is refused by lookup.
CREATE TABLE IF NOT EXISTS mon_plan_member (
  tenant           TEXT NOT NULL,
  notification_id  TEXT NOT NULL,
  plan_id          TEXT NOT NULL,
  PRIMARY KEY (tenant, notification_id, plan_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS mon_plan_member_plan ON mon_plan_member (tenant, plan_id);

-- Agent tokens: the token value is derived from the id with a keyed hash (the key lives in
-- monitoring.key beside this file), so only its SHA-256 is stored, for the agent endpoint to check.
CREATE TABLE IF NOT EXISTS mon_agent_token (
  tenant        TEXT NOT NULL,
  id            TEXT NOT NULL,
  label         TEXT,
  token_sha256  BLOB NOT NULL UNIQUE,
  created_ms    INTEGER NOT NULL,
  updated_ms    INTEGER NOT NULL,
  PRIMARY KEY (tenant, id)
) STRICT, WITHOUT ROWID;

-- Agents as they connect (the agent endpoint writes these); listed while connected within 30 days.
CREATE TABLE IF NOT EXISTS mon_agent (
  tenant             TEXT NOT NULL,
  id                 TEXT NOT NULL,
  last_connected_ms  INTEGER NOT NULL,
  PRIMARY KEY (tenant, id)
) STRICT, WITHOUT ROWID;

-- Agent connections are not stored: the agent endpoint holds them in memory while they are open
-- (src/monitoring/agent-connections.ts). Versions 1 to 3 had a table for them; version 4 drops it.
DROP TABLE IF EXISTS mon_agent_connection;

-- Alarm state changes, read as a time series: ordered by (timestamp_ms, id).
CREATE TABLE IF NOT EXISTS mon_alarm_changelog (
  tenant          TEXT NOT NULL,
  id              TEXT NOT NULL,
  timestamp_ms    INTEGER NOT NULL,
  entity_id       TEXT NOT NULL,
  alarm_id        TEXT NOT NULL,
  check_id        TEXT NOT NULL,
  state           TEXT NOT NULL,
  previous_state  TEXT,
  zone_id         TEXT,
  PRIMARY KEY (tenant, id)
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS mon_changelog_time ON mon_alarm_changelog (tenant, timestamp_ms, id);
CREATE INDEX IF NOT EXISTS mon_changelog_entity ON mon_alarm_changelog (tenant, entity_id, timestamp_ms, id);

-- Declared one-letter types of check metrics (i, I, l, L, n, s), written by whoever knows them (the
-- check runner, the agent endpoint); metrics without a row have their type inferred from their values.
CREATE TABLE IF NOT EXISTS mon_check_metric_type (
  tenant     TEXT NOT NULL,
  entity_id  TEXT NOT NULL,
  check_id   TEXT NOT NULL,
  name       TEXT NOT NULL,
  type       TEXT NOT NULL CHECK (type IN ('i', 'I', 'l', 'L', 'n', 's')),
  PRIMARY KEY (tenant, entity_id, check_id, name)
) STRICT, WITHOUT ROWID;

-- The committed state of each alarm (issue 11; src/monitoring/alarms/alarm-state-store.ts): one
-- row per alarm, written in the same transaction as the changelog entry of the change, so after a
-- restart the alarm runtime starts from it and does not notify again; the overview view reads it
-- as latest_alarm_states. status is the criteria's message of the change; zone_id the zone whose
-- observation completed it. Deleting an alarm deletes its row.
CREATE TABLE IF NOT EXISTS mon_alarm_state (
  tenant          TEXT NOT NULL,
  entity_id       TEXT NOT NULL,
  alarm_id        TEXT NOT NULL,
  check_id        TEXT NOT NULL,
  state           TEXT NOT NULL CHECK (state IN ('OK', 'WARNING', 'CRITICAL')),
  previous_state  TEXT CHECK (previous_state IN ('OK', 'WARNING', 'CRITICAL')),
  status          TEXT NOT NULL,
  zone_id         TEXT,
  timestamp_ms    INTEGER NOT NULL,
  PRIMARY KEY (tenant, entity_id, alarm_id)
) STRICT, WITHOUT ROWID;

-- Account settings (issue 11; src/monitoring/account/account-store.ts): one row per tenant, made
-- on first use. technical_contacts is a JSON array of email addresses, stored plain (not secrets);
-- webhook_token is sent as a header on webhook deliveries, so it must be recoverable: it is stored
-- encrypted with the server key (an `enc:v1:` value, secret-box.ts), never in plaintext. metadata
-- is a JSON object or NULL. The account id is derived from the tenant, so it is not stored.
CREATE TABLE IF NOT EXISTS mon_account (
  tenant              TEXT NOT NULL,
  technical_contacts  TEXT NOT NULL,
  webhook_token       TEXT NOT NULL,
  metadata            TEXT,
  created_ms          INTEGER NOT NULL,
  updated_ms          INTEGER NOT NULL,
  PRIMARY KEY (tenant)
) STRICT, WITHOUT ROWID;

-- Notification deliveries (issue 11; src/monitoring/delivery/outbox-store.ts): the durable outbox.
-- One row per notification of one alarm state change, inserted in the transaction that records
-- the change, so an acknowledged change is never without its deliveries; the deliverer sends the
-- pending rows when due (at least once: a row in flight at a crash is sent again). event is the
-- spec 6.1 payload as JSON (check secrets redacted; the notification's own secrets are read at
-- send time, never stored here). status: pending (claimed_ms set while an attempt runs), delivered,
-- or dead (out of attempts, refused, notification deleted, or pending past OUTBOX_PENDING_AGE_MAX_MS;
-- a manual retry makes it pending again). attempts counts every attempt; retry_from is attempts at
-- the last manual retry, so a retried dead letter gets a fresh budget. next_attempt_ms is when a
-- pending row is due. Ids start with the creation time, so id order is enqueue order. A rowid
-- table: the due scan and pruning go through the partial and status indexes below.
CREATE TABLE IF NOT EXISTS mon_outbox (
  tenant           TEXT NOT NULL,
  id               TEXT NOT NULL,
  notification_id  TEXT NOT NULL,
  entity_id        TEXT NOT NULL,
  alarm_id         TEXT NOT NULL,
  check_id         TEXT NOT NULL,
  state            TEXT NOT NULL,
  event            TEXT NOT NULL,
  status           TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'dead')),
  attempts         INTEGER NOT NULL,
  retry_from       INTEGER NOT NULL,
  next_attempt_ms  INTEGER NOT NULL,
  claimed_ms       INTEGER,
  last_error       TEXT,
  created_ms       INTEGER NOT NULL,
  updated_ms       INTEGER NOT NULL,
  PRIMARY KEY (tenant, id)
) STRICT;
CREATE INDEX IF NOT EXISTS mon_outbox_due ON mon_outbox (next_attempt_ms) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS mon_outbox_age ON mon_outbox (created_ms) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS mon_outbox_status ON mon_outbox (tenant, status, id);
CREATE INDEX IF NOT EXISTS mon_outbox_finished ON mon_outbox (status, updated_ms);

-- Every delivery attempt (the notification history): its transaction id, when it started, how
-- long it took, and its outcome (delivered, failed and retried, or dead) with the channel's note
-- or error (never a secret). Pruned with its outbox row.
CREATE TABLE IF NOT EXISTS mon_delivery_attempt (
  tenant       TEXT NOT NULL,
  outbox_id    TEXT NOT NULL,
  attempt      INTEGER NOT NULL,
  txn_id       TEXT NOT NULL,
  started_ms   INTEGER NOT NULL,
  duration_ms  INTEGER NOT NULL,
  outcome      TEXT NOT NULL CHECK (outcome IN ('delivered', 'failed', 'dead')),
  detail       TEXT,
  PRIMARY KEY (tenant, outbox_id, attempt)
) STRICT, WITHOUT ROWID;

-- Maintenance suppressions (issue 19; src/monitoring/suppressions/): one row per suppression, a
-- document like the other objects (doc: label, start_time and end_time in ms, entities, checks
-- as entityId:checkId, alarms as entityId:alarmId, notification_plans, and an optional recurrence
-- with a cron-like schedule, a time zone and a duration). Ids carry the prefix sp.
CREATE TABLE IF NOT EXISTS mon_suppression (
  tenant      TEXT NOT NULL,
  id          TEXT NOT NULL,
  doc         TEXT NOT NULL,
  created_ms  INTEGER NOT NULL,
  updated_ms  INTEGER NOT NULL,
  PRIMARY KEY (tenant, id)
) STRICT, WITHOUT ROWID;
-- By end time: the account limit counts a tenant's suppressions not yet ended (end_time > now),
-- and the upkeep deletes those ended before the history retention, earliest first.
CREATE INDEX IF NOT EXISTS mon_suppression_end ON mon_suppression (tenant, json_extract(doc, '$.end_time'));
CREATE INDEX IF NOT EXISTS mon_suppression_ended ON mon_suppression (json_extract(doc, '$.end_time'));

-- Suppression logs (issue 19): one row per notification a suppression stopped, written in the
-- transaction that records the alarm change, read as a time series ordered by (timestamp_ms, id).
-- suppressions is a JSON array of the suppression ids that covered the change; txn_id the
-- transaction of the change. Kept as long as the notification history (pruned in bounded steps).
CREATE TABLE IF NOT EXISTS mon_suppression_log (
  tenant          TEXT NOT NULL,
  id              TEXT NOT NULL,
  timestamp_ms    INTEGER NOT NULL,
  entity_id       TEXT NOT NULL,
  alarm_id        TEXT NOT NULL,
  check_id        TEXT NOT NULL,
  plan_id         TEXT NOT NULL,
  suppressions    TEXT NOT NULL,
  state           TEXT NOT NULL,
  previous_state  TEXT,
  txn_id          TEXT NOT NULL,
  PRIMARY KEY (tenant, id)
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS mon_suppression_log_time ON mon_suppression_log (tenant, timestamp_ms, id);
CREATE INDEX IF NOT EXISTS mon_suppression_log_age ON mon_suppression_log (timestamp_ms);

-- Notification history (issue 19; src/monitoring/history/): one row per alarm state change that
-- had a plan to notify, written in the change's transaction; id is the changelog entry's id (a
-- UUID). status: notified (outbox rows were queued: outbox_ids, a JSON array, names them in the
-- order of notification_ids; their attempts are mon_delivery_attempt's rows), suppressed
-- (suppressions, a JSON array of ids, stopped every notification) or none (the plan's list for the
-- state was empty). alarm_status is the alarm's status message for the new state (the criteria's
-- text); notification_ids the plan's notification ids for the state (a JSON array: those queued,
-- or those a suppression stopped; [] for none). Kept 30 days by default (configurable), pruned in
-- bounded steps; the outbox rows it names are kept as long.
CREATE TABLE IF NOT EXISTS mon_notification_history (
  tenant          TEXT NOT NULL,
  id              TEXT NOT NULL,
  timestamp_ms    INTEGER NOT NULL,
  entity_id       TEXT NOT NULL,
  alarm_id        TEXT NOT NULL,
  check_id        TEXT NOT NULL,
  plan_id         TEXT NOT NULL,
  state           TEXT NOT NULL,
  previous_state  TEXT,
  status          TEXT NOT NULL CHECK (status IN ('notified', 'suppressed', 'none')),
  alarm_status    TEXT NOT NULL,
  txn_id          TEXT NOT NULL,
  suppressions    TEXT,
  notification_ids TEXT NOT NULL,
  outbox_ids      TEXT NOT NULL,
  PRIMARY KEY (tenant, id)
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS mon_history_alarm ON mon_notification_history (tenant, entity_id, alarm_id, check_id, timestamp_ms, id);
CREATE INDEX IF NOT EXISTS mon_history_age ON mon_notification_history (timestamp_ms);

-- The audit trail (issue 19; src/monitoring/audits/): one row per request that may change
-- something (every method but GET and HEAD) through the monitoring API, after its answer: method,
-- path, its query (JSON, with _who and _why apart), status, the user and token id that made it,
-- the request id (txnId), the headers that carry no credential (JSON), and the request body as
-- JSON with every secret replaced (never a password, key or token), or NULL without a body.
-- Read as a time series; kept 30 days by default (configurable), pruned in bounded steps.
CREATE TABLE IF NOT EXISTS mon_audit (
  tenant        TEXT NOT NULL,
  id            TEXT NOT NULL,
  timestamp_ms  INTEGER NOT NULL,
  method        TEXT NOT NULL,
  path          TEXT NOT NULL,
  query         TEXT,
  status        INTEGER NOT NULL,
  user          TEXT,
  token_id      TEXT,
  request_id    TEXT NOT NULL,
  headers       TEXT NOT NULL,
  who           TEXT,
  why           TEXT,
  body          TEXT,
  PRIMARY KEY (tenant, id)
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS mon_audit_time ON mon_audit (tenant, timestamp_ms, id);
CREATE INDEX IF NOT EXISTS mon_audit_age ON mon_audit (timestamp_ms);
