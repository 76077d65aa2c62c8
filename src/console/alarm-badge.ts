// Owns the alarm state badge: a state's name in a coloured pill (the DOM side of alarm-state.ts), used by the entity list, the alarm table and the changelog.
import { stateClass, stateLabel, type ConsoleAlarmState } from './alarm-state.js';
import { el } from './dom.js';

/** A state badge: the state's name as text, `data-state` the same, coloured by its class (monitoring.css); `testId` sets `data-testid`. */
export function stateBadge(state: ConsoleAlarmState, testId?: string): HTMLSpanElement {
  return el('span', { class: `alarm-state ${stateClass(state)}`, 'data-state': state, 'data-testid': testId, title: stateLabel(state) }, state);
}
