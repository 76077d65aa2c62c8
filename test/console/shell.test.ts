// Tests which page the shell picks for a route.
import { describe, expect, it } from 'vitest';
import type { Page } from '../../src/console/page.js';
import { parseHash } from '../../src/console/router.js';
import { pageFor } from '../../src/console/shell.js';

describe('pageFor', () => {
  const page = (segment: string): Page => ({ segment, mount: () => () => undefined });
  const metrics = { page: page('metrics'), depth: 1 };
  const entities = { page: page('entities'), depth: 1 };
  const entity = { page: page('entities'), depth: 2 };
  const routes = [metrics, entities, entity];

  it('picks by first segment and depth', () => {
    expect(pageFor(routes, parseHash('#/metrics?m=a'))).toBe(metrics);
    expect(pageFor(routes, parseHash('#/entities'))).toBe(entities);
    expect(pageFor(routes, parseHash('#/entities/en1'))).toBe(entity);
    expect(pageFor(routes, parseHash('#/entities/en1/extra'))).toBe(entities);
    expect(pageFor(routes, parseHash('#/nowhere'))).toBeUndefined();
  });
});
