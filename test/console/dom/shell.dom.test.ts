// @vitest-environment happy-dom
// Tests the shell's DOM over a fake server: a 401 to any call with a token returns to sign-in with a message (through apiRequest's unauthorized hook), and a 401 to sign-in itself stays on the form.
// Each "Guard (mutation N)" comment names the change to src/console that makes the test fail; each was checked on a patched copy of src/console (run through a vitest alias), never on src/ itself.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ConsoleSession } from '../../../src/console/api-request.js';
import type { Page } from '../../../src/console/page.js';
import { SESSION_KEY } from '../../../src/console/session-store.js';
import { fakeServer, flush, gate, ok, SESSION, useFakeClock, type FakeReply, type FakeServer } from './fake-server.js';

/** The shell registers its unauthorized handler and window listeners once per mount and never removes them: every test loads fresh modules. */
type Modules = {
  shell: typeof import('../../../src/console/shell.js');
  api: typeof import('../../../src/console/api-request.js');
  consoleApi: typeof import('../../../src/console/console-api.js');
  monitoringApi: typeof import('../../../src/console/monitoring-api.js');
};

const EXPIRED_BY_SERVER = 'The server no longer accepts your session; sign in again.';
const UNAUTHORIZED: FakeReply = { status: 401, body: { unauthorized: { code: 401, message: 'Authentication required.' } } };

let modules: Modules;
let app: HTMLElement;
let windowListeners: [string, EventListenerOrEventListenerObject][];

/** Every test opens the console at this hash. */
const PROBE_HASH = '#/probe';

beforeEach(async () => {
  // happy-dom dispatches hashchange a moment after the hash changes (even on replaceState): set it
  // and wait for the event before any shell listens, so no shell sees a late hashchange.
  if (window.location.hash !== PROBE_HASH) {
    const changed = new Promise((resolve) => window.addEventListener('hashchange', resolve, { once: true }));
    window.location.hash = PROBE_HASH;
    await changed;
  }
  useFakeClock();
  vi.resetModules();
  modules = {
    shell: await import('../../../src/console/shell.js'),
    api: await import('../../../src/console/api-request.js'),
    consoleApi: await import('../../../src/console/console-api.js'),
    monitoringApi: await import('../../../src/console/monitoring-api.js'),
  };
  // The shell's window listeners (hashchange, errors) are removed after each test, so no earlier shell reacts to a later test.
  windowListeners = [];
  const add = window.addEventListener.bind(window);
  vi.spyOn(window, 'addEventListener').mockImplementation((type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions) => {
    if (listener === null) return;
    windowListeners.push([type, listener]);
    add(type, listener, options);
  });
  window.sessionStorage.clear();
  app = document.createElement('div');
  document.body.replaceChildren(app);
});

afterEach(() => {
  for (const [type, listener] of windowListeners) window.removeEventListener(type, listener);
  vi.restoreAllMocks();
  vi.useRealTimers();
  vi.unstubAllGlobals();
  window.sessionStorage.clear();
});

/** A page at `#/probe` that makes one call with the session when mounted. */
function probePage(call: (session: ConsoleSession) => Promise<unknown>, outcomes: unknown[]): Page {
  return {
    segment: 'probe',
    mount(root, _route, context) {
      root.textContent = 'probe page';
      root.dataset.loading = 'false';
      call(context.session).then(
        () => outcomes.push('ok'),
        (error: unknown) => outcomes.push(error),
      );
      return () => undefined;
    },
  };
}

function byTestId(id: string): HTMLElement | null {
  return app.querySelector<HTMLElement>(`[data-testid="${id}"]`);
}

/** Mounts the shell at PROBE_HASH with `routes`. */
function openShell(routes: Parameters<Modules['shell']['mountShell']>[1]): void {
  expect(window.location.hash).toBe(PROBE_HASH);
  modules.shell.mountShell(app, routes);
}

describe('shell DOM: unauthorized', () => {
  const clients: [string, (m: Modules, session: ConsoleSession) => Promise<unknown>][] = [
    ['monitoring', (m, session) => m.monitoringApi.overviewPage(session, { entityIds: ['en1'] })],
    ['metrics', (m, session) => m.consoleApi.searchMetrics(session, 'cpu')],
  ];

  it.each(clients)('a 401 to a %s call with the token returns to sign-in with a message', async (_name, call) => {
    const server: FakeServer = fakeServer(() => UNAUTHORIZED);
    const stub = globalThis.fetch;
    window.sessionStorage.setItem(SESSION_KEY, JSON.stringify(SESSION));
    const outcomes: unknown[] = [];
    openShell([{ page: probePage((session) => call(modules, session), outcomes), depth: 1 }]);
    expect(app.querySelector('[data-testid=page]')?.textContent).toBe('probe page');
    await flush();

    expect(server.calls).toHaveLength(1);
    expect(server.calls[0]?.token).toBe(SESSION.token);
    // The call itself still rejects with the API's error for its caller.
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ status: 401 });
    // Guard (mutation 13, api-request.ts): without calling the handlers on a 401, the page stays and the session is kept.
    // Guard (mutation 15, shell.ts): without the shell's onUnauthorized registration, likewise.
    expect(byTestId('signin-form')).not.toBeNull();
    expect(byTestId('message')?.textContent).toBe(EXPIRED_BY_SERVER);
    expect(byTestId('message')?.dataset.kind).toBe('info');
    expect(window.sessionStorage.getItem(SESSION_KEY)).toBeNull();
    expect(app.querySelector('header')?.dataset.signedIn).toBe('false');
    // The hook lives in apiRequest: the shell leaves the page's fetch alone.
    expect(globalThis.fetch).toBe(stub);
  });

  it('a 401 to sign-in itself shows the identity API’s message on the same form, once', async () => {
    const invalid = 'Username or api key is invalid.';
    const server = fakeServer((call) =>
      call.path === '/v2.0/tokens' ? { status: 401, body: { unauthorized: { code: 401, message: invalid } } } : { status: 500, text: 'unexpected' },
    );
    const told = vi.fn();
    modules.api.onUnauthorized(told);
    openShell([{ page: probePage(() => Promise.resolve(), []), depth: 1 }]);
    const form = byTestId('signin-form') as HTMLFormElement;
    expect(form).not.toBeNull();

    (form.querySelector('#signin-username') as HTMLInputElement).value = 'ana';
    (form.querySelector('#signin-api-key') as HTMLInputElement).value = 'wrong-key';
    form.dispatchEvent(new Event('submit', { cancelable: true }));
    await flush();

    expect(server.calls.map((call) => [call.method, call.path, call.token])).toEqual([['POST', '/v2.0/tokens', undefined]]);
    // Guard (mutations 14 and 16 together): the shell signs out again, remounting the form and replacing the message.
    expect(byTestId('signin-form')).toBe(form);
    expect(byTestId('message')?.textContent).toBe(invalid);
    expect(byTestId('message')?.dataset.kind).toBe('error');
    expect((form.querySelector('button[type=submit]') as HTMLButtonElement).disabled).toBe(false);
    // Guard (mutation 14, api-request.ts: `&& options.session !== undefined` removed): the handlers hear of a 401 to a call without a token.
    expect(told).not.toHaveBeenCalled();
    await flush();
    expect(server.calls).toHaveLength(1);
  });

  it('a 401 arriving after the shell signed out does not remount the form under the user’s typing', async () => {
    const late = gate<FakeReply>();
    let calls = 0;
    fakeServer(() => (++calls === 1 ? UNAUTHORIZED : late.promise));
    window.sessionStorage.setItem(SESSION_KEY, JSON.stringify(SESSION));
    // A page that makes two calls and does not abort them on unmount.
    const outcomes: unknown[] = [];
    openShell([{ page: probePage((session) => Promise.all([modules.consoleApi.searchMetrics(session, 'a'), modules.consoleApi.searchMetrics(session, 'b')]), outcomes), depth: 1 }]);
    await flush();
    const form = byTestId('signin-form') as HTMLFormElement;
    expect(form).not.toBeNull();
    (form.querySelector('#signin-username') as HTMLInputElement).value = 'an';

    late.release(UNAUTHORIZED);
    await flush();
    // Guard (mutation 16, shell.ts: `if (loadSession(...).kind !== 'none')` removed): the form is mounted anew and the typed name lost.
    expect(byTestId('signin-form')).toBe(form);
    expect((form.querySelector('#signin-username') as HTMLInputElement).value).toBe('an');
    expect(byTestId('message')?.textContent).toBe(EXPIRED_BY_SERVER);
  });

  it('after a 401 the user signs in again and returns to the page they were on', async () => {
    let accepted = false;
    const server = fakeServer((call) => {
      if (call.path === '/v2.0/tokens') {
        accepted = true;
        return ok({ access: { token: { id: 'tok-2', expires: '2100-01-01T00:00:00Z', tenant: { id: 't1' } }, user: { name: 'ana' } } });
      }
      return accepted && call.token === 'tok-2' ? ok([]) : UNAUTHORIZED;
    });
    window.sessionStorage.setItem(SESSION_KEY, JSON.stringify(SESSION));
    const outcomes: unknown[] = [];
    openShell([{ page: probePage((session) => modules.consoleApi.searchMetrics(session, 'cpu'), outcomes), depth: 1 }]);
    await flush();
    const form = byTestId('signin-form') as HTMLFormElement;
    (form.querySelector('#signin-username') as HTMLInputElement).value = 'ana';
    (form.querySelector('#signin-api-key') as HTMLInputElement).value = 'right-key';
    form.dispatchEvent(new Event('submit', { cancelable: true }));
    await flush();

    expect(byTestId('signin-form')).toBeNull();
    expect(app.querySelector('[data-testid=page]')?.textContent).toBe('probe page');
    expect(byTestId('message')?.textContent).toBe('');
    expect(JSON.parse(window.sessionStorage.getItem(SESSION_KEY) ?? 'null')).toMatchObject({ token: 'tok-2' });
    expect(server.calls.map((call) => call.token)).toEqual([SESSION.token, undefined, 'tok-2']);
    expect(outcomes.at(-1)).toBe('ok');
  });
});
