// Owns the hash routes: `#/metrics?m=a&m=b` to a Route and back (pure parsing), and following the location's hash.
import type { Route } from './page.js';

/** The route shown when the hash is empty or `#/`. */
export const DEFAULT_PATH = '/metrics';

/**
 * The route of a location hash: `#/entities/en%201?refresh=5000` is segments ['entities', 'en 1']
 * with params refresh=5000. Empty segments are dropped; a segment that is not valid
 * percent-encoding is kept as written rather than failing the whole route.
 */
export function parseHash(hash: string): Route {
  const text = hash.startsWith('#') ? hash.slice(1) : hash;
  const question = text.indexOf('?');
  const path = question === -1 ? text : text.slice(0, question);
  const query = question === -1 ? '' : text.slice(question + 1);
  const segments = path
    .split('/')
    .filter((segment) => segment !== '')
    .map(decodeSegment);
  return { segments, params: new URLSearchParams(query) };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Hash parameters: URLSearchParams (repeated names kept) or a plain record. */
export type HashParams = URLSearchParams | Readonly<Record<string, string>>;

/**
 * The hash of a path and its parameters, the one way the console writes a hash. A string path is
 * split at `/` (`hashOf('/entities', {q: 'web'})` is `#/entities?q=web`); an array holds the
 * segments themselves, so a segment may contain any text, even `/`
 * (`hashOf(['entities', 'en 1'])` is `#/entities/en%201`). parseHash reads it back.
 */
export function hashOf(path: string | readonly string[], params?: HashParams): string {
  const segments = typeof path === 'string' ? path.split('/').filter((segment) => segment !== '') : path;
  const search = params === undefined ? '' : (params instanceof URLSearchParams ? params : new URLSearchParams(params)).toString();
  return `#/${segments.map((segment) => encodeURIComponent(segment)).join('/')}${search === '' ? '' : `?${search}`}`;
}

/** Rewrites the location's hash without a history entry or a hashchange (a page recording its own state, e.g. the metrics shown). */
export function replaceHash(path: string | readonly string[], params?: HashParams): void {
  window.history.replaceState(window.history.state, '', hashOf(path, params));
}

/** Calls `onRoute` with the current route now and after every hash change; returns the function that stops listening. */
export function followHash(onRoute: (route: Route) => void): () => void {
  const listener = (): void => onRoute(parseHash(window.location.hash));
  window.addEventListener('hashchange', listener);
  listener();
  return () => window.removeEventListener('hashchange', listener);
}
