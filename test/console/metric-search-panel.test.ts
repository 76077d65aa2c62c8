// Tests the search panel's line for a search that matches too many metrics.
import { describe, expect, it } from 'vitest';
import { ConsoleApiError } from '../../src/console/api-request.js';
import { tooManyText } from '../../src/console/metric-search-panel.js';

describe('tooManyText', () => {
  it('turns SEARCH_RESULTS_TOO_MANY into the narrow-your-search line with the limit', () => {
    expect(tooManyText(new ConsoleApiError(400, 'More than 1000 metrics match; narrow the glob.', 'SEARCH_RESULTS_TOO_MANY'))).toBe('More than 1000 metrics match; narrow the search.');
    expect(tooManyText(new ConsoleApiError(400, 'Too many', 'SEARCH_RESULTS_TOO_MANY'))).toBe('Too many metrics match; narrow the search.');
    expect(tooManyText(new ConsoleApiError(400, 'More than 1000', 'OTHER'))).toBeUndefined();
    expect(tooManyText(new Error('x'))).toBeUndefined();
  });
});
