// Owns the shell: navigation, who is signed in, sign-out, the message area, and mounting the page of the current hash route (or sign-in).
import { isAbortError, onUnauthorized, type ConsoleSession } from './api-request.js';
import { el, replaceChildren } from './dom.js';
import type { Page, PageContext, Route } from './page.js';
import { DEFAULT_PATH, followHash, hashOf, parseHash, replaceHash } from './router.js';
import { clearSession, loadSession, saveSession, type SessionStorageLike } from './session-store.js';
import { mountSignIn } from './signin-page.js';

/** A page and how many path segments it answers (entityPage answers `#/entities/<id>`, two). */
export interface PageRoute {
  readonly page: Page;
  readonly depth: number;
}

/** Longest delay setTimeout takes (about 24.8 days); a later expiry is checked again then. */
const TIMER_DELAY_MAX_MS = 2 ** 31 - 1;

/** The message shown when a session's token expires. */
const EXPIRED_TEXT = 'Your session expired; sign in again.';

type ShowMessage = PageContext['showMessage'];

/** The page for a route: same first segment and depth, else the same first segment; undefined when none answers. */
export function pageFor(routes: readonly PageRoute[], route: Route): PageRoute | undefined {
  const first = route.segments[0];
  const matching = routes.filter((r) => r.page.segment === first);
  return matching.find((r) => r.depth === route.segments.length) ?? matching[0];
}

/** The shell's fixed elements. */
interface ShellParts {
  readonly message: HTMLElement;
  readonly pageRoot: HTMLElement;
  readonly whoami: HTMLElement;
  readonly signout: HTMLButtonElement;
  readonly nav: HTMLElement;
  readonly account: HTMLElement;
  readonly header: HTMLElement;
}

/** Builds the header (brand, navigation, account), the message area and the page root into `app`. */
function buildShell(app: HTMLElement, routes: readonly PageRoute[]): ShellParts {
  const message = el('div', { class: 'message', 'data-testid': 'message' });
  const pageRoot = el('main', { class: 'page', 'data-testid': 'page', id: 'page' });
  const whoami = el('span', { class: 'whoami', 'data-testid': 'whoami' });
  const signout = el('button', { type: 'button', class: 'secondary', 'data-testid': 'signout' }, 'Sign out');
  const nav = el('nav', { 'data-testid': 'nav', 'aria-label': 'Console' });
  for (const { page } of routes) {
    if (page.title !== undefined) nav.append(el('a', { href: hashOf([page.segment]), 'data-segment': page.segment }, page.title));
  }
  const account = el('div', { class: 'account' }, whoami, signout);
  const header = el('header', { class: 'shell-header' }, el('a', { class: 'brand', href: hashOf(DEFAULT_PATH) }, 'Strata'), nav, account);
  replaceChildren(app, el('a', { class: 'skip', href: '#page' }, 'Skip to content'), header, message, pageRoot);
  return { message, pageRoot, whoami, signout, nav, account, header };
}

/** The message area's showMessage: an empty text clears it; errors are role=alert, other messages role=status. */
function messageArea(message: HTMLElement): ShowMessage {
  const show: ShowMessage = (text, kind) => {
    message.dataset.kind = kind;
    if (text === '') {
      message.replaceChildren();
      message.removeAttribute('role');
      return;
    }
    message.setAttribute('role', kind === 'error' ? 'alert' : 'status');
    // The × is drawn by CSS, so the area's text is exactly the message.
    const dismiss = el('button', { type: 'button', class: 'dismiss', 'aria-label': 'Dismiss message', title: 'Dismiss' });
    dismiss.addEventListener('click', () => show('', 'info'));
    replaceChildren(message, el('span', {}, text), dismiss);
  };
  return show;
}

/** Shows the header as signed in as `session`, with the navigation link of `route` marked current. */
function showSignedIn(parts: ShellParts, session: ConsoleSession, route: Route): void {
  parts.header.dataset.signedIn = 'true';
  parts.nav.hidden = false;
  parts.account.hidden = false;
  parts.whoami.textContent = `${session.username} · tenant ${session.tenantId}`;
  for (const link of parts.nav.querySelectorAll('a')) {
    if (link.dataset.segment === route.segments[0]) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

/** Shows the header as signed out: no navigation, no account. */
function showSignedOut(parts: ShellParts): void {
  parts.header.dataset.signedIn = 'false';
  parts.nav.hidden = true;
  parts.account.hidden = true;
}

/** Fills the page root with the not-found page. */
function showNotFound(pageRoot: HTMLElement): void {
  pageRoot.dataset.page = 'not-found';
  pageRoot.dataset.loading = 'false';
  replaceChildren(pageRoot, el('h1', {}, 'Not found'), el('p', {}, 'No page here. '), el('a', { href: hashOf(DEFAULT_PATH) }, 'Go to metrics'));
}

/** Signs out (calls `onExpired`) when the watched session's token expires; one session watched at a time. */
function expiryWatch(storage: SessionStorageLike, onExpired: () => void): { watch(session: ConsoleSession): void; stop(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stop = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  const watch = (session: ConsoleSession): void => {
    stop();
    const delay = Math.min(TIMER_DELAY_MAX_MS, Math.max(0, session.expiresMs - Date.now()));
    timer = setTimeout(() => {
      if (loadSession(storage, Date.now()).kind !== 'live') onExpired();
      else watch(session);
    }, delay);
  };
  return { watch, stop };
}

/** Whatever a page forgets to catch still reaches the user as a message, never only the devtools console. */
function reportUncaught(showMessage: ShowMessage): void {
  window.addEventListener('unhandledrejection', (event) => {
    event.preventDefault();
    const reason: unknown = event.reason;
    if (isAbortError(reason)) return;
    showMessage(reason instanceof Error ? reason.message : String(reason), 'error');
  });
  window.addEventListener('error', (event) => {
    event.preventDefault();
    showMessage(event.message, 'error');
  });
}

/** What a page is handed: the session, the message area, and navigation (to the current hash, it remounts the page). */
function pageContext(session: ConsoleSession, showMessage: ShowMessage, showRoute: (route: Route) => void): PageContext {
  return {
    session,
    showMessage,
    navigate(path, params) {
      const hash = hashOf(path, params);
      if (window.location.hash === hash) showRoute(parseHash(hash));
      else window.location.hash = hash;
    },
  };
}

/** Mounts `target`'s page for `route` into the page root; a page that throws while mounting is reported, not fatal. */
function mountPage(pageRoot: HTMLElement, target: PageRoute, route: Route, context: PageContext): (() => void) | undefined {
  pageRoot.dataset.page = target.page.segment;
  pageRoot.dataset.loading = 'true';
  try {
    return target.page.mount(pageRoot, route, context);
  } catch (error) {
    pageRoot.dataset.loading = 'false';
    context.showMessage(`The page failed to open: ${error instanceof Error ? error.message : String(error)}`, 'error');
    return undefined;
  }
}

/** Mounts the console into `app` and follows the location hash from then on. */
export function mountShell(app: HTMLElement, routes: readonly PageRoute[]): void {
  const storage = window.sessionStorage;
  const parts = buildShell(app, routes);
  const showMessage = messageArea(parts.message);
  let unmount: (() => void) | undefined;

  const stopPage = (): void => {
    unmount?.();
    unmount = undefined;
    parts.pageRoot.replaceChildren();
  };
  const signOut = (text: string): void => {
    clearSession(storage);
    expiry.stop();
    showSignIn();
    showMessage(text, 'info');
  };
  const expiry = expiryWatch(storage, () => signOut(EXPIRED_TEXT));

  const onSignedIn = (session: ConsoleSession): void => {
    saveSession(storage, session);
    showMessage('', 'info');
    const route = parseHash(window.location.hash);
    // A deep link opened before sign-in is kept; otherwise the metrics page.
    if (route.segments.length === 0 || pageFor(routes, route) === undefined) window.location.hash = hashOf(DEFAULT_PATH);
    else showRoute(route);
  };
  function showSignIn(): void {
    stopPage();
    showSignedOut(parts);
    parts.pageRoot.dataset.page = 'signin';
    parts.pageRoot.dataset.loading = 'false';
    unmount = mountSignIn(parts.pageRoot, { showMessage, onSignedIn });
  }

  function showRoute(asked: Route): void {
    const stored = loadSession(storage, Date.now());
    if (stored.kind !== 'live') {
      showSignIn();
      if (stored.kind === 'expired') showMessage(EXPIRED_TEXT, 'info');
      return;
    }
    let route = asked;
    if (route.segments.length === 0) {
      replaceHash(DEFAULT_PATH);
      route = parseHash(hashOf(DEFAULT_PATH));
    }
    stopPage();
    expiry.watch(stored.session);
    showSignedIn(parts, stored.session, route);
    const target = pageFor(routes, route);
    if (target === undefined) showNotFound(parts.pageRoot);
    else unmount = mountPage(parts.pageRoot, target, route, pageContext(stored.session, showMessage, showRoute));
  }

  parts.signout.addEventListener('click', () => signOut('Signed out.'));
  onUnauthorized(() => {
    if (loadSession(storage, Date.now()).kind !== 'none') signOut('The server no longer accepts your session; sign in again.');
  });
  reportUncaught(showMessage);
  let lastPage: string | undefined;
  followHash((route) => {
    // A message belongs to the page it was shown on.
    if (route.segments[0] !== lastPage) showMessage('', 'info');
    lastPage = route.segments[0];
    showRoute(route);
  });
}
