// Owns the plan panel beside the plot: the planner's resolution, expected count, what was asked, retention cut, reason and limit note.
import { el, replaceChildren } from './dom.js';
import type { PlanTexts } from './plan-text.js';

/** The panel: its element and how the page fills it. */
export interface PlanPanel {
  readonly element: HTMLElement;
  /** Shows a plan's texts. */
  show(texts: PlanTexts): void;
  /** Shows that a plan is being asked for. */
  loading(): void;
  /** Shows that there is nothing to plan (no metric plotted) or the plan failed. */
  empty(text: string): void;
}

const FIELDS = [
  ['plan-resolution', 'Resolution'],
  ['plan-expected', 'Expected points'],
  ['plan-requested', 'Asked'],
  ['plan-cut', 'Retention cut'],
  ['plan-reason', "Planner's reason"],
] as const;

/** A plan panel; `onUsePoints` runs when the user accepts the offer to switch to points. */
export function createPlanPanel(onUsePoints: () => void): PlanPanel {
  const values = new Map(FIELDS.map(([testId]) => [testId, el('dd', { 'data-testid': testId })]));
  const list = el('dl', { class: 'plan-fields' });
  for (const [testId, label] of FIELDS) list.append(el('dt', {}, label), values.get(testId) as HTMLElement);
  const status = el('p', { class: 'plan-status', 'data-testid': 'plan-status' });
  const limitText = el('p', {});
  const usePoints = el('button', { type: 'button', 'data-testid': 'use-points', class: 'secondary' }, 'Use points instead');
  usePoints.addEventListener('click', onUsePoints);
  const limit = el('div', { class: 'plan-limit', 'data-testid': 'plan-limit', role: 'note', hidden: true }, limitText);
  const element = el('aside', { class: 'plan', 'data-testid': 'plan', 'aria-label': 'Query plan', 'aria-live': 'polite' }, el('h2', {}, 'Plan'), status, list, limit);

  const setStatus = (text: string): void => {
    status.textContent = text;
    status.hidden = text === '';
    list.hidden = text !== '';
    limit.hidden = true;
  };
  return {
    element,
    show(texts) {
      setStatus('');
      const byId: Readonly<Record<(typeof FIELDS)[number][0], string>> = {
        'plan-resolution': texts.resolution,
        'plan-expected': texts.expected,
        'plan-requested': texts.requested,
        'plan-cut': texts.cut,
        'plan-reason': texts.reason,
      };
      for (const [testId, node] of values) node.textContent = byId[testId];
      limitText.textContent = texts.limit ?? '';
      replaceChildren(limit, limitText, texts.offerUsePoints ? usePoints : null);
      limit.hidden = texts.limit === null;
      element.dataset.state = texts.offerUsePoints ? 'blocked' : 'ready';
    },
    loading() {
      setStatus('Planning…');
      element.dataset.state = 'loading';
    },
    empty(text) {
      setStatus(text);
      element.dataset.state = 'empty';
    },
  };
}
