// The web console in chromium against a tenant with 10,000 metrics and 1,000 entities, as one sequence of steps in one tab: metric search finds one name or asks to narrow, the entity list pages by 100, entity search finds one label.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../http/harness.js';
import { ConsoleFixture } from './console-fixture.js';
import { signIn, step, textOf, waitText } from './console-page.js';
import { createEntities, until, type IngestPoint } from './console-seed.js';

/** Seeding 1,000 entities and 10,000 metrics and driving chromium: minutes, not seconds. */
const STEP_BUDGET_MS = 300_000;
/** The whole sequence: four steps. */
const TEST_TIMEOUT_MS = 4 * STEP_BUDGET_MS;
const PAGE_WAIT_MS = 60_000;
const METRICS = 10_000;
const ENTITIES = 1_000;
/** Entity creations in flight at once. */
const ENTITY_CONCURRENCY = 8;
/** The page size of the console's entity list (the contract's ENTITY_PAGE_SIZE). */
const ENTITY_PAGE_SIZE = 100;
/** The entity the search must find. */
const WANTED = 777;
const metricName = (i: number): string => `scale.metric.${String(i).padStart(5, '0')}`;
const entityLabel = (i: number): string => `scale-host-${String(i).padStart(4, '0')}`;

const f = new ConsoleFixture({ dirPrefix: 'strata-console-scale-', tenant: 'console-scale', username: 'scale-ops', apiKey: 'scale-admin-key-0123456789' });
const TENANT = f.options.tenant;
let entityIds: string[] = [];

beforeAll(async () => {
  await f.start(async (url, token) => {
    const nowMs = Date.now();
    const points: IngestPoint[] = Array.from({ length: METRICS }, (_, i) => ({ metricName: metricName(i), metricValue: i, collectionTime: nowMs - 60_000, unit: 'count' }));
    // One ingest batch (the API takes up to 100,000 points in one request).
    const res = await call({ url }, 'POST', `/ingest/v2.0/${TENANT}/ingest`, { token, json: points });
    expect(res.status, res.text).toBe(200);
    entityIds = await createEntities(url, token, TENANT, ENTITIES, ENTITY_CONCURRENCY, entityLabel);
  });
}, STEP_BUDGET_MS);

afterAll(() => f.stop(), STEP_BUDGET_MS);

/** The entity ids the list shows now. */
async function listedIds(): Promise<string[]> {
  return f.page.locator('[data-testid=entity-list] [data-entity-id]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-entity-id') ?? ''));
}

/** Waits until the list shows `count` rows none of which is in `not`; returns their ids. */
async function waitListed(count: number, not: readonly string[] = []): Promise<string[]> {
  return until(
    `${count} entities listed`,
    async () => {
      const ids = await listedIds();
      return ids.length === count && !ids.some((id) => not.includes(id)) ? ids : undefined;
    },
    PAGE_WAIT_MS,
  );
}

async function metricSearchStep(): Promise<void> {
  const { page } = f;
  await signIn(page, f.url, f.options.username, f.options.apiKey, PAGE_WAIT_MS);
  await page.fill('[data-testid=metric-search]', 'metric.04321');
  await page.locator(`[data-testid=metric-results] [data-metric="${metricName(4321)}"]`).waitFor({ timeout: PAGE_WAIT_MS });
  await waitText(page, '[data-testid=search-status]', (text) => /\b1 metric\b/.test(text));
  const listed = await page.locator('[data-testid=metric-results] [data-metric]').evaluateAll((items) => items.map((item) => item.getAttribute('data-metric')));
  expect(listed).toEqual([metricName(4321)]);
  expect(await textOf(page, '[data-testid=message]')).toBe('');
}

async function tooManyStep(): Promise<void> {
  const { page } = f;
  const refused = await call({ url: f.url }, 'GET', `/metrics/v2.0/${TENANT}/metrics/search?query=${encodeURIComponent('*scale*')}`, { token: f.token });
  expect(refused.json).toMatchObject({ details: { code: 'SEARCH_RESULTS_TOO_MANY' } });
  f.watched.expectFailedResource(/\/metrics\/search$/, refused.status);
  await page.fill('[data-testid=metric-search]', 'scale');
  const status = await waitText(page, '[data-testid=search-status]', (text) => /narrow/i.test(text));
  expect(status).not.toMatch(/^\d+ metrics?$/);
  expect(await page.locator('[data-testid=metric-results] [data-metric]').count()).toBe(0);
  expect(await page.locator('[data-testid=page]').getAttribute('data-page')).toBe('metrics');
  expect(await page.locator('[data-testid=metric-search]').isVisible()).toBe(true);
  expect(await page.locator('[data-testid=message][role=alert]').count()).toBe(0);
}

async function pagingStep(): Promise<void> {
  const { page } = f;
  await page.goto(`${f.url}/#/entities`);
  const first = await waitListed(ENTITY_PAGE_SIZE);
  expect(first.every((id) => entityIds.includes(id))).toBe(true);
  await waitText(page, '[data-testid=entity-count]', (text) => /\b1\D{1,3}100\b/.test(text));
  expect(await page.locator('[data-testid=prev-page]').isDisabled()).toBe(true);
  await page.click('[data-testid=next-page]');
  const second = await waitListed(ENTITY_PAGE_SIZE, first);
  expect(second.every((id) => entityIds.includes(id))).toBe(true);
  await waitText(page, '[data-testid=entity-count]', (text) => /\b101\D{1,3}200\b/.test(text));
  await page.click('[data-testid=prev-page]');
  expect(await waitListed(ENTITY_PAGE_SIZE, second)).toEqual(first);
  await waitText(page, '[data-testid=entity-count]', (text) => /\b1\D{1,3}100\b/.test(text));
  expect(await textOf(page, '[data-testid=message]')).toBe('');
}

async function entitySearchStep(): Promise<void> {
  const { page } = f;
  await page.fill('[data-testid=entity-search]', entityLabel(WANTED));
  expect(await waitListed(1)).toEqual([entityIds[WANTED]]);
  await waitText(page, '[data-testid=entity-count]', (text) => /\b1 found\b/.test(text) && text.includes(String(ENTITIES)));
  const row = page.locator(`[data-testid=entity-list] [data-entity-id="${entityIds[WANTED]}"]`);
  expect(await row.textContent()).toContain(entityLabel(WANTED));
  expect(await textOf(page, '[data-testid=message]')).toBe('');
}

describe('the web console at 10,000 metrics and 1,000 entities', () => {
  // One tab through the whole sequence (signed in once; the list search starts on the list the paging step left): steps of one test, never alone.
  it('finds one metric among 10,000, asks to narrow a search of all, pages 1,000 entities by 100 and finds one by its label', async () => {
    await step(f.watched, '1 sign in and find one metric among 10,000 by a unique part of its name', metricSearchStep);
    await step(f.watched, '2 a search matching 10,000 names shows the narrow-your-search message, not an error page', tooManyStep);
    await step(f.watched, '3 the entity list pages by 100 with the position shown, forwards and back', pagingStep);
    await step(f.watched, `4 entity ${WANTED} of ${ENTITIES} is found by its label`, entitySearchStep);
  }, TEST_TIMEOUT_MS);
});
