// Owns the world of the alarm runtime tests: a monitoring file in a temp dir, a real Outbox, a ManualClock, a recording logger, and hand-made results.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../src/core/clock.js';
import { AlarmRuntime } from '../../../src/monitoring/alarms/alarm-runtime.js';
import type { ChangelogRow } from '../../../src/monitoring/changelog-store.js';
import type { CheckResult } from '../../../src/monitoring/check-result.js';
import type { CheckDoc } from '../../../src/monitoring/check-rules.js';
import type { DeliveryItem } from '../../../src/monitoring/delivery/outbox-store.js';
import { Outbox } from '../../../src/monitoring/delivery/outbox.js';
import type { StoredDoc } from '../../../src/monitoring/doc-store.js';
import { openMonitoring, type MonitoringService } from '../../../src/monitoring/monitoring-service.js';

/** Start of every test's time. */
export const T0_MS = 1_790_000_000_000;
/** The check's period: rounds of observations are this far apart. */
export const PERIOD_MS = 60_000;
/** The check's zones. */
export const ZONES = ['mzdfw', 'mziad', 'mzord'] as const;
/** A check secret that must never leave the store. */
export const SECRET = 'alarm-runtime-secret-9f3';
/** CRITICAL on a non-200 code, after 2 agreeing observations per zone, by a majority of zones. */
export const CODE_CRITERIA = [
  ':set consecutiveCount=2',
  ':set consistencyLevel=QUORUM',
  "if (metric['code'] != '200') { return new AlarmStatus(CRITICAL, 'HTTP #{code}'); }",
  "return new AlarmStatus(OK, 'HTTP #{code}');",
].join('\n');

/** One log line the runtime wrote. */
export interface LogLine {
  readonly level: 'info' | 'warn' | 'error';
  readonly obj: object;
  readonly msg: string;
}

/** The monitoring objects of the world. */
export interface Tree {
  readonly entity: string;
  readonly check: string;
  readonly plan: string;
  /** Notifications of the plan: two on critical (sorted by id), one on warning, one on ok. */
  readonly critical: readonly string[];
  readonly warning: string;
  readonly ok: string;
}

/** A monitoring service, an outbox and an alarm runtime over one temp dir, reopenable like a restart. */
export class RuntimeWorld {
  readonly dir = mkdtempSync(join(tmpdir(), 'strata-alarm-runtime-'));
  readonly clock = new ManualClock(T0_MS);
  readonly logs: LogLine[] = [];
  wakes = 0;
  monitoring!: MonitoringService;
  outbox!: Outbox;
  runtime!: AlarmRuntime;

  constructor() {
    this.open();
  }

  private open(): void {
    this.monitoring = openMonitoring({ dir: this.dir, clock: this.clock });
    this.outbox = new Outbox({ db: this.monitoring.store.db, clock: this.clock });
    const record = (level: LogLine['level']) => (obj: object, msg: string) => this.logs.push({ level, obj, msg });
    this.runtime = new AlarmRuntime({
      monitoring: this.monitoring,
      outbox: this.outbox,
      wakeDelivery: () => {
        this.wakes += 1;
      },
      clock: this.clock,
      logger: { info: record('info'), warn: record('warn'), error: record('error') },
    });
  }

  /** Stops the runtime and closes the file, then opens both again: a server restart. */
  restart(): void {
    this.runtime.stop();
    this.monitoring.close();
    this.open();
  }

  /** An entity with a remote.http check (holding a password) from ZONES, and a plan naming four notifications. */
  tree(tenant = 't1'): Tree {
    const m = this.monitoring;
    const entity = m.entities.createEntity(tenant, { label: 'web', ip_addresses: { web: '192.0.2.10' } });
    const check = m.entities.createCheck(tenant, entity, {
      type: 'remote.http',
      details: { url: 'http://192.0.2.10/', auth_user: 'u', auth_password: SECRET },
      monitoring_zones_poll: [...ZONES],
      target_alias: 'web',
      period: PERIOD_MS / 1000,
      timeout: 10,
    });
    const notify = (label: string) => m.notifications.createNotification(tenant, { label, type: 'webhook', details: { url: `https://hooks.example.com/${label}` } });
    const critical = [notify('crit-a'), notify('crit-b')].sort();
    const warning = notify('warn');
    const ok = notify('ok');
    const plan = m.notifications.createPlan(tenant, { label: 'plan', critical_state: critical, warning_state: [warning], ok_state: [ok] });
    return { entity, check, plan, critical, warning, ok };
  }

  /** Creates an alarm on the tree's check. */
  alarm(tree: Tree, criteria: string | null = CODE_CRITERIA, tenant = 't1'): string {
    return this.monitoring.entities.createAlarm(tenant, tree.entity, { check_id: tree.check, notification_plan_id: tree.plan, criteria });
  }

  /** The check as the runner hands it over (secrets in plaintext). */
  check(tree: Tree, tenant = 't1'): StoredDoc<CheckDoc> {
    return this.monitoring.entities.checkWithSecrets(tenant, tree.entity, tree.check);
  }

  /** Observes one round: the clock at the i-th period, one result per zone in ZONES order with that zone's code (a missing code: 200). */
  round(tree: Tree, i: number, codes: Partial<Record<(typeof ZONES)[number], string>> = {}, tenant = 't1'): void {
    this.clock.set(Math.max(this.clock.now(), T0_MS + i * PERIOD_MS));
    const check = this.check(tree, tenant);
    for (const [offset, zone] of ZONES.entries()) this.runtime.observe(tenant, check, result(zone, T0_MS + i * PERIOD_MS + offset, codes[zone] ?? '200'));
  }

  /** The tenant's changelog entries of the last day, oldest first, through the changelog service (operation 9). */
  changelog(tenant = 't1'): readonly ChangelogRow[] {
    return this.monitoring.changelogs.list(tenant, { limit: 1000, fromMs: T0_MS - 1, toMs: T0_MS + 86_400_000 }).values;
  }

  /** The tenant's outbox rows in enqueue order (rows of one change, enqueued in the same millisecond, by notification id). */
  deliveries(tenant = 't1'): readonly DeliveryItem[] {
    const rows = [...this.outbox.list(tenant, { limit: 1000 }).values];
    return rows.sort((a, b) => a.createdMs - b.createdMs || (a.notificationId < b.notificationId ? -1 : 1));
  }

  close(): void {
    this.runtime.stop();
    this.monitoring.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A remote.http result of one zone: its code as the string metric `code`, with a duration. */
export function result(zone: string, timestampMs: number, code: string): CheckResult {
  return {
    monitoringZoneId: zone,
    timestampMs,
    available: true,
    status: `code=${code},rt=0.010s,bytes=2`,
    metrics: { code: { type: 's', data: code, unit: 'unknown' }, duration: { type: 'I', data: 10, unit: 'milliseconds' } },
  };
}

/** [state, previousState, zone] of changelog entries. */
export function transitions(rows: readonly ChangelogRow[]): [string, string | null, string | null][] {
  return rows.map((row) => [row.state, row.previousState, row.zoneId]);
}
