// Owns the human text of an alarm event (the fields people read, a subject, body lines, a short text) and the headers naming it.
import { ALERT_LIST_LINES_MAX } from '../monitoring-limits.js';
import type { AlarmEventPayload } from './channel-types.js';

/** Header (email and gateways) carrying the delivery attempt's transaction id. */
export const TXN_ID_HEADER = 'X-Strata-Txn-Id';
/** Header (email and gateways) carrying the alarm event's event_id, the same on every attempt, so receivers can drop duplicates. */
export const EVENT_ID_HEADER = 'X-Strata-Event-Id';

/** One metric of the observation that changed the alarm's state. */
export interface AlertMetric {
  readonly name: string;
  /** The one-character type code (spec 6.1), or '' when absent. */
  readonly type: string;
  readonly data: string;
  readonly unit: string;
}

/** One zone's observation behind the state change. */
export interface AlertObservation {
  readonly zoneId: string;
  readonly state: string;
  readonly status: string;
  readonly timestampMs: number | undefined;
}

/** What people read of an alarm event, taken from the spec 6.1 payload with safe fallbacks. */
export interface AlertSummary {
  readonly eventId: string;
  readonly tenant: string;
  readonly state: string;
  /** The state before this change, when the event says it. */
  readonly previousState: string | undefined;
  /** The alarm's message for the new state. */
  readonly status: string;
  readonly timestampMs: number | undefined;
  readonly target: string | undefined;
  /** The transaction id of the evaluation that changed the state (details.txn_id). */
  readonly evaluationTxnId: string | undefined;
  readonly entityId: string;
  readonly entityLabel: string;
  readonly checkId: string;
  readonly checkLabel: string;
  readonly checkType: string;
  readonly alarmId: string;
  readonly alarmLabel: string;
  readonly metrics: readonly AlertMetric[];
  readonly observations: readonly AlertObservation[];
}

type Json = Readonly<Record<string, unknown>>;

function record(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

function integer(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : undefined;
}

/** Replaces control characters (newlines included) with spaces, so user text cannot add header or log lines. */
export function singleLine(value: string): string {
  return value.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}

/** Cuts text to at most `max` characters (whole code points), ending in '...' when cut. */
export function truncateText(value: string, max: number): string {
  const points = Array.from(value);
  if (points.length <= max) return value;
  return `${points.slice(0, Math.max(0, max - 3)).join('')}...`;
}

function metricsOf(details: Json): AlertMetric[] {
  return Object.entries(record(details.metrics))
    .map(([name, raw]) => {
      const metric = record(raw);
      return { name, type: text(metric.type) ?? '', data: text(metric.data) ?? '', unit: text(metric.unit) ?? '' };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function observationsOf(details: Json): AlertObservation[] {
  const list = Array.isArray(details.observations) ? (details.observations as unknown[]) : [];
  return list.map((raw) => {
    const o = record(raw);
    return { zoneId: text(o.monitoring_zone_id) ?? '', state: text(o.state) ?? '', status: text(o.status) ?? '', timestampMs: integer(o.timestamp) };
  });
}

/** Reads the fields people read from a spec 6.1 event; missing labels fall back to ids, missing text to ''. */
export function alertSummary(event: AlarmEventPayload): AlertSummary {
  const details = record(event.details);
  const entity = record(event.entity);
  const check = record(event.check);
  const alarm = record(event.alarm);
  const entityId = text(entity.id) ?? '';
  const checkId = text(check.id) ?? '';
  const alarmId = text(alarm.id) ?? '';
  return {
    eventId: event.event_id,
    tenant: event.tenant_id,
    state: text(details.state) ?? 'UNKNOWN',
    previousState: text(details.previous_state) ?? text(event.previous_state),
    status: text(details.status) ?? '',
    timestampMs: integer(details.timestamp),
    target: text(details.target),
    evaluationTxnId: text(details.txn_id),
    entityId,
    entityLabel: text(entity.label) || entityId,
    checkId,
    checkLabel: text(check.label) || checkId,
    checkType: text(check.type) ?? '',
    alarmId,
    alarmLabel: text(alarm.label) || alarmId,
    metrics: metricsOf(details),
    observations: observationsOf(details),
  };
}

/** An ISO 8601 UTC time, or 'unknown'. */
export function isoTime(timestampMs: number | undefined): string {
  if (timestampMs === undefined) return 'unknown';
  const date = new Date(timestampMs);
  return Number.isNaN(date.getTime()) ? 'unknown' : date.toISOString();
}

/** `[CRITICAL] <entity label>: <alarm label> on <check label>`, on one line (not cut: the caller bounds it). */
export function alertSubject(summary: AlertSummary): string {
  return singleLine(`[${summary.state}] ${summary.entityLabel}: ${summary.alarmLabel} on ${summary.checkLabel}`);
}

/** A short one-line text for SMS and incident descriptions: `CRITICAL <entity>: <alarm>: <status>`, at most `max` characters. */
export function shortAlertText(summary: AlertSummary, max: number): string {
  const status = summary.status === '' ? '' : `: ${summary.status}`;
  return truncateText(singleLine(`${summary.state} ${summary.entityLabel}: ${summary.alarmLabel}${status}`), max);
}

/** Up to ALERT_LIST_LINES_MAX lines, then one line saying how many were left out. */
function bounded(lines: string[]): string[] {
  if (lines.length <= ALERT_LIST_LINES_MAX) return lines;
  return [...lines.slice(0, ALERT_LIST_LINES_MAX), `  ... and ${lines.length - ALERT_LIST_LINES_MAX} more`];
}

function metricLine(metric: AlertMetric): string {
  const unit = metric.unit === '' ? '' : ` ${metric.unit}`;
  const type = metric.type === '' ? '' : ` (type ${metric.type})`;
  return `  ${singleLine(`${metric.name}: ${metric.data}${unit}${type}`)}`;
}

function observationLine(o: AlertObservation): string {
  return `  ${singleLine(`${o.zoneId}: ${o.state} at ${isoTime(o.timestampMs)}${o.status === '' ? '' : `: ${o.status}`}`)}`;
}

/** The plain-text body of an alert, one string per line: state, status, time, the objects, metrics and observations. */
export function alertBodyLines(summary: AlertSummary): string[] {
  const was = summary.previousState === undefined ? '' : ` (was ${summary.previousState})`;
  const lines = [
    singleLine(`Alarm "${summary.alarmLabel}" is ${summary.state}${was}.`),
    singleLine(`Status: ${summary.status}`),
    `Time: ${isoTime(summary.timestampMs)}`,
  ];
  if (summary.target !== undefined) lines.push(singleLine(`Target: ${summary.target}`));
  lines.push(
    '',
    singleLine(`Entity: ${summary.entityLabel} (${summary.entityId})`),
    singleLine(`Check: ${summary.checkLabel} (${summary.checkId}${summary.checkType === '' ? '' : `, ${summary.checkType}`})`),
    singleLine(`Alarm: ${summary.alarmLabel} (${summary.alarmId})`),
  );
  if (summary.metrics.length > 0) lines.push('', 'Metrics:', ...bounded(summary.metrics.map(metricLine)));
  if (summary.observations.length > 0) lines.push('', 'Observations:', ...bounded(summary.observations.map(observationLine)));
  lines.push('', `Event: ${singleLine(summary.eventId)}`);
  if (summary.evaluationTxnId !== undefined) lines.push(`Evaluation transaction: ${singleLine(summary.evaluationTxnId)}`);
  return lines;
}
