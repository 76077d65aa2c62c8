// Owns what the plan panel says (pure): the planner's answer and the console's own limit notes turned into the panel's lines.

/** The plan fields the panel shows (a subset of the plan API's answer). */
export interface PlanFacts {
  readonly resolution: string;
  readonly from: number;
  readonly to: number;
  readonly servedFrom: number;
  readonly expectedPoints: number;
  readonly pointsMax: number;
  readonly reason: string;
}

/** The panel's lines; `limit` is null when there is nothing to explain. */
export interface PlanTexts {
  readonly resolution: string;
  readonly expected: string;
  readonly requested: string;
  readonly cut: string;
  readonly reason: string;
  readonly limit: string | null;
  /** True when the plot was not requested and switching to points would fix it. */
  readonly offerUsePoints: boolean;
}

/** What the page decided, besides the plan. */
export interface PlanDecision {
  /** What the user asked, e.g. "auto: 600 points for 1200 px". */
  readonly requested: string;
  /** Notes on what the limit changed (capped points, a coarser resolution), in order. */
  readonly notes: readonly string[];
  /** True when the plan is over the limit for a resolution the user chose: nothing was fetched. */
  readonly blocked: boolean;
}

/** The panel's text for a plan and the page's decision; `formatTime` renders an instant (local time in the browser). */
export function planTexts(plan: PlanFacts, decision: PlanDecision, formatTime: (ms: number) => string): PlanTexts {
  const cut = plan.servedFrom > plan.from ? formatTime(plan.servedFrom) : 'none';
  const limit =
    decision.notes.length === 0
      ? null
      : `A view returns at most ${plan.pointsMax} points, so a plot never asks the server for more than it can send in one answer. ${decision.notes.map(sentence).join(' ')}`;
  return {
    resolution: plan.resolution,
    expected: String(plan.expectedPoints),
    requested: decision.requested,
    cut,
    reason: plan.reason,
    limit,
    offerUsePoints: decision.blocked,
  };
}

/** A note as a sentence: capitalised, ending in a full stop. */
function sentence(note: string): string {
  const trimmed = note.trim();
  if (trimmed === '') return '';
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}
