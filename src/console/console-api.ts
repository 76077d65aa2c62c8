// Owns the console's typed calls to the identity and metrics APIs (sign-in, metric search, view plan, view values) over apiRequest.
import { apiRequest, ConsoleApiError, type ConsoleSession } from './api-request.js';
import type { TimeRange, ViewAsk } from './range.js';
import { viewQuery } from './range.js';

/** The statistics every plot asks for: the line and the band. */
export const VIEW_SELECT = 'average,min,max';

/** One search result. */
export interface MetricMatch {
  readonly metric: string;
  readonly unit?: string;
}

/** The planner's decision for a view (GET .../views/{metric}/plan). */
export interface ViewPlan {
  readonly resolution: string;
  readonly from: number;
  readonly to: number;
  /** Later than from when older data has expired: the retention cut. */
  readonly servedFrom: number;
  readonly readFrom: number;
  readonly expectedPoints: number;
  readonly overLimit: boolean;
  readonly pointsMax: number;
  readonly bucketWidthMs: number;
  readonly reason: string;
}

/** One value of a view with the selected statistics. */
export interface ViewValue {
  readonly timestamp: number;
  readonly numPoints: number;
  readonly average?: number | null;
  readonly min?: number | null;
  readonly max?: number | null;
}

/** One metric's values in a multi-metric view. */
export interface MetricValues {
  readonly metric: string;
  readonly unit: string;
  readonly type: string;
  readonly data: readonly ViewValue[];
}

interface AccessBody {
  readonly access?: { readonly token?: { readonly id?: unknown; readonly expires?: unknown; readonly tenant?: { readonly id?: unknown } }; readonly user?: { readonly name?: unknown } };
}

/** Signs in with a username and API key (POST /v2.0/tokens) and returns the session to keep. */
export async function signIn(username: string, apiKey: string, signal?: AbortSignal): Promise<ConsoleSession> {
  const body = await apiRequest<AccessBody>('/v2.0/tokens', {
    method: 'POST',
    body: { auth: { 'RAX-KSKEY:apiKeyCredentials': { username, apiKey } } },
    ...(signal !== undefined ? { signal } : {}),
  });
  const token = body?.access?.token;
  const expiresMs = typeof token?.expires === 'string' ? Date.parse(token.expires) : NaN;
  if (typeof token?.id !== 'string' || typeof token.tenant?.id !== 'string' || !Number.isFinite(expiresMs)) {
    throw new ConsoleApiError(502, 'The identity API answered without a token.', undefined);
  }
  const name = body.access?.user?.name;
  return { token: token.id, tenantId: token.tenant.id, username: typeof name === 'string' ? name : username, expiresMs };
}

/**
 * The glob a search box's text means: text with `*` or `?` is a glob as typed; plain text is a
 * substring, so `cpu` searches `*cpu*`.
 */
export function searchGlob(text: string): string {
  const trimmed = text.trim();
  return /[*?]/.test(trimmed) ? trimmed : `*${trimmed}*`;
}

function metricsBase(session: ConsoleSession): string {
  return `/metrics/v2.0/${encodeURIComponent(session.tenantId)}`;
}

/** Metrics whose names match the search text (GET .../metrics/search); more than the API's cap fails with SEARCH_RESULTS_TOO_MANY. */
export async function searchMetrics(session: ConsoleSession, text: string, signal?: AbortSignal): Promise<readonly MetricMatch[]> {
  return apiRequest<MetricMatch[]>(`${metricsBase(session)}/metrics/search`, {
    session,
    query: { query: searchGlob(text) },
    ...(signal !== undefined ? { signal } : {}),
  });
}

/** How the planner would serve a view of `metric` (the plan does not depend on the metric, so one plan serves a multi-metric plot). */
export async function viewPlan(session: ConsoleSession, metric: string, range: TimeRange, ask: ViewAsk, signal?: AbortSignal): Promise<ViewPlan> {
  return apiRequest<ViewPlan>(`${metricsBase(session)}/views/${encodeURIComponent(metric)}/plan`, {
    session,
    query: viewQuery(range, ask),
    ...(signal !== undefined ? { signal } : {}),
  });
}

/** Average, min and max of several metrics over a range (POST .../views with the names as the body). */
export async function viewValues(session: ConsoleSession, metrics: readonly string[], range: TimeRange, ask: ViewAsk, signal?: AbortSignal): Promise<readonly MetricValues[]> {
  const body = await apiRequest<{ metrics: MetricValues[] }>(`${metricsBase(session)}/views`, {
    method: 'POST',
    session,
    body: metrics,
    query: { ...viewQuery(range, ask), select: VIEW_SELECT },
    ...(signal !== undefined ? { signal } : {}),
  });
  return body.metrics;
}
