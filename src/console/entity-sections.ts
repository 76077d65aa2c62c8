// Owns the DOM of the entity page's header, check table and alarm table (built from API values with textContent only; no fetching).
import { currentStates, stateLabel, type AlarmCurrentState } from './alarm-state.js';
import { stateBadge } from './alarm-badge.js';
import { el, replaceChildren } from './dom.js';
import type { AlarmView, CheckView, EntityView, OverviewValue } from './monitoring-api.js';
import { addressSummary, formatSeconds } from './monitoring-format.js';
import { formatTime } from './time-format.js';

/** A table with a caption-like heading row and an empty body carrying `testId`. */
function table(testId: string, label: string, headings: readonly string[]): { table: HTMLTableElement; body: HTMLTableSectionElement } {
  const body = el('tbody');
  const head = el('thead', {}, el('tr', {}, ...headings.map((text) => el('th', { scope: 'col' }, text))));
  return { table: el('table', { class: 'mon-table', 'data-testid': testId, 'aria-label': label }, head, body), body };
}

/** The name a person reads for an object (entity, check, alarm): its label, else (no label, or only blanks) its id. */
export function labelOf(item: { readonly id: string; readonly label: string | null }): string {
  return item.label !== null && item.label.trim() !== '' ? item.label : item.id;
}

/** One line on what an entity is: its addresses and agent. */
export function entityFacts(entity: EntityView): string {
  const agent = entity.agent_id !== null && entity.agent_id !== '' ? `agent ${entity.agent_id}` : 'no agent';
  return `${addressSummary(entity.ip_addresses)} · ${agent}`;
}

/** The check table: label, type, period, timeout, zones (or the agent). */
export function checkTable(): { table: HTMLTableElement; body: HTMLTableSectionElement } {
  return table('check-list', 'Checks', ['Check', 'Type', 'Period', 'Timeout', 'Zones']);
}

/** Fills the check table's body. */
export function fillChecks(body: HTMLTableSectionElement, checks: readonly CheckView[]): void {
  if (checks.length === 0) {
    replaceChildren(body, el('tr', {}, el('td', { colspan: 5, class: 'mon-muted' }, 'No checks.')));
    return;
  }
  replaceChildren(
    body,
    ...checks.map((check) =>
      el(
        'tr',
        { 'data-check-id': check.id },
        el('td', {}, el('div', {}, labelOf(check)), el('div', { class: 'mon-id' }, check.id), check.disabled === true ? el('span', { class: 'mon-muted mon-small' }, 'disabled') : null),
        el('td', {}, check.type),
        el('td', {}, formatSeconds(check.period)),
        el('td', {}, formatSeconds(check.timeout)),
        el('td', {}, check.monitoring_zones_poll === null || check.monitoring_zones_poll.length === 0 ? 'agent' : check.monitoring_zones_poll.join(', ')),
      ),
    ),
  );
}

/** The alarm table: label, check, current state, per-zone detail. */
export function alarmTable(): { table: HTMLTableElement; body: HTMLTableSectionElement } {
  return table('alarm-list', 'Alarms', ['Alarm', 'Check', 'State', 'Latest by zone']);
}

/** The per-zone detail of an alarm's state: zone, state, time and the criteria's message. */
function zoneDetail(current: AlarmCurrentState): HTMLElement {
  if (current.zones.length === 0) return el('span', { class: 'mon-muted mon-small' }, 'not evaluated yet');
  return el(
    'ul',
    { class: 'mon-zone-detail' },
    ...current.zones.map((zone) =>
      el('li', {}, stateBadge(zone.state), ` ${zone.zoneId ?? 'agent'} · ${formatTime(zone.timestampMs)}`, zone.status !== '' ? ` · ${zone.status}` : ''),
    ),
  );
}

/** The hover text of an alarm's badge: the state's meaning and each zone's state. */
function badgeTitle(current: AlarmCurrentState): string {
  const zones = current.zones.map((zone) => `${zone.zoneId ?? 'agent'}: ${zone.state}${zone.status !== '' ? ` (${zone.status})` : ''}`);
  return [stateLabel(current.state), ...zones].join('\n');
}

/** Fills the alarm table's body with each alarm's current state (worst of its zones; UNKNOWN when none yet). */
export function fillAlarms(body: HTMLTableSectionElement, value: OverviewValue): void {
  const alarms: readonly AlarmView[] = value.alarms;
  if (alarms.length === 0) {
    replaceChildren(body, el('tr', {}, el('td', { colspan: 4, class: 'mon-muted' }, 'No alarms.')));
    return;
  }
  const states = currentStates(
    alarms.map((alarm) => alarm.id),
    value.latest_alarm_states,
  );
  const checkLabels = new Map(value.checks.map((check) => [check.id, labelOf(check)]));
  replaceChildren(
    body,
    ...alarms.map((alarm) => {
      const current = states.get(alarm.id) ?? { state: 'UNKNOWN' as const, zones: [] };
      const badge = stateBadge(current.state, 'alarm-state');
      badge.title = badgeTitle(current);
      return el(
        'tr',
        { 'data-alarm-id': alarm.id, 'data-state': current.state },
        el('td', {}, el('div', {}, labelOf(alarm)), el('div', { class: 'mon-id' }, alarm.id), alarm.disabled === true ? el('span', { class: 'mon-muted mon-small' }, 'disabled') : null),
        el('td', {}, checkLabels.get(alarm.check_id) ?? alarm.check_id),
        el('td', {}, badge),
        el('td', {}, zoneDetail(current)),
      );
    }),
  );
}
