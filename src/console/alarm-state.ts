// Owns what the console makes of alarm states: their order (CRITICAL worst), the worst of several, and each state's label and CSS class (pure, no DOM).

/**
 * The states the console shows, from least to most severe. UNKNOWN (no evaluation yet) ranks
 * below OK: it is not an alert, and an entity with one OK alarm and one not yet evaluated is
 * better described as OK than as unknown; UNKNOWN is what shows only when nothing is known.
 */
export const CONSOLE_ALARM_STATES = ['UNKNOWN', 'OK', 'WARNING', 'CRITICAL'] as const;

/** A state as the console shows it. */
export type ConsoleAlarmState = (typeof CONSOLE_ALARM_STATES)[number];

/** The state of an API value: one of the known names (any case), else UNKNOWN (absent, null, or a name the console does not know). */
export function parseAlarmState(value: unknown): ConsoleAlarmState {
  if (typeof value !== 'string') return 'UNKNOWN';
  const upper = value.toUpperCase();
  return (CONSOLE_ALARM_STATES as readonly string[]).includes(upper) ? (upper as ConsoleAlarmState) : 'UNKNOWN';
}

/** A state's rank: 0 for UNKNOWN up to 3 for CRITICAL. */
export function stateSeverity(state: ConsoleAlarmState): number {
  return CONSOLE_ALARM_STATES.indexOf(state);
}

/** The worst (most severe) of the states; UNKNOWN when there are none. */
export function worstState(states: Iterable<ConsoleAlarmState>): ConsoleAlarmState {
  let worst: ConsoleAlarmState = 'UNKNOWN';
  for (const state of states) if (stateSeverity(state) > stateSeverity(worst)) worst = state;
  return worst;
}

/** The CSS class that colours a state (OK green, WARNING amber, CRITICAL red, UNKNOWN grey; see monitoring.css). */
export function stateClass(state: ConsoleAlarmState): string {
  return `alarm-state-${state.toLowerCase()}`;
}

/** The words a person reads for a state (title text beside the badge, which shows the state's name). */
export function stateLabel(state: ConsoleAlarmState): string {
  switch (state) {
    case 'OK':
      return 'OK: every condition is fine';
    case 'WARNING':
      return 'WARNING: needs attention';
    case 'CRITICAL':
      return 'CRITICAL: failing';
    case 'UNKNOWN':
      return 'UNKNOWN: not evaluated yet';
  }
}

/** One zone's latest state of an alarm (a latest_alarm_states row, reduced). */
export interface ZoneAlarmState {
  /** The monitoring zone that decided it; null for an agent check. */
  readonly zoneId: string | null;
  readonly state: ConsoleAlarmState;
  readonly status: string;
  readonly timestampMs: number;
}

/** An alarm's current state: the worst of its zones' states and the per-zone detail (newest first). */
export interface AlarmCurrentState {
  readonly state: ConsoleAlarmState;
  readonly zones: readonly ZoneAlarmState[];
}

/** A latest-state row as the overview sends it (only the fields used here). */
export interface LatestStateRow {
  readonly alarm_id: string;
  readonly state: unknown;
  readonly status?: string | null;
  readonly timestamp: number;
  readonly analyzed_by_monitoring_zone_id?: string | null;
}

/**
 * Each alarm's current state from latest-state rows: an alarm with rows in several zones shows
 * the worst of them; for one zone, the newest row counts; an alarm of `alarmIds` without rows
 * is UNKNOWN. Rows of alarms not in `alarmIds` are ignored.
 */
export function currentStates(alarmIds: readonly string[], rows: readonly LatestStateRow[]): Map<string, AlarmCurrentState> {
  const byAlarm = new Map<string, Map<string, ZoneAlarmState>>();
  for (const id of alarmIds) byAlarm.set(id, new Map());
  for (const row of rows) {
    const zones = byAlarm.get(row.alarm_id);
    if (zones === undefined) continue;
    const zoneId = row.analyzed_by_monitoring_zone_id ?? null;
    const key = zoneId ?? '';
    const known = zones.get(key);
    if (known !== undefined && known.timestampMs > row.timestamp) continue;
    zones.set(key, { zoneId, state: parseAlarmState(row.state), status: row.status ?? '', timestampMs: row.timestamp });
  }
  const result = new Map<string, AlarmCurrentState>();
  for (const [id, zones] of byAlarm) {
    const list = [...zones.values()].sort((a, b) => b.timestampMs - a.timestampMs);
    result.set(id, { state: worstState(list.map((zone) => zone.state)), zones: list });
  }
  return result;
}
