// Owns the contract between the console's shell and its pages: what a page is given and what it gives back.
import type { ConsoleSession } from './api-request.js';

/** The part of the location hash after `#`: a path and its parameters, e.g. `/entities/en1?range=24h`. */
export interface Route {
  /** Path segments, decoded: `#/entities/en1` is ['entities', 'en1']. */
  readonly segments: readonly string[];
  readonly params: URLSearchParams;
}

/** What the shell hands a page. */
export interface PageContext {
  readonly session: ConsoleSession;
  /** Shows a message in the shell's message area (role=alert for errors); replaces the previous one. */
  showMessage(text: string, kind: 'error' | 'info'): void;
  /** Navigates to another hash route, e.g. navigate('/entities/en1'). */
  navigate(path: string, params?: Readonly<Record<string, string>>): void;
}

/** A page: renders into `root` and returns the function that stops its timers and requests when the route changes. */
export interface Page {
  /** The first path segment this page answers (e.g. 'metrics', 'entities'). */
  readonly segment: string;
  /** The title in the navigation bar; pages without one are not linked from it. */
  readonly title?: string;
  mount(root: HTMLElement, route: Route, context: PageContext): () => void;
}
