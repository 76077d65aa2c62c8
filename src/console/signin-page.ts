// Owns the sign-in form: username and API key to a session through the identity API; errors go to the shell's message area.
import { messageOf, type ConsoleSession } from './api-request.js';
import { signIn } from './console-api.js';
import { el } from './dom.js';

/** What the sign-in form needs from the shell. */
export interface SignInContext {
  onSignedIn(session: ConsoleSession): void;
  showMessage(text: string, kind: 'error' | 'info'): void;
}

/** Renders the sign-in form into `root`; returns the function that removes it and abandons a pending sign-in. */
export function mountSignIn(root: HTMLElement, context: SignInContext): () => void {
  const controller = new AbortController();
  const username = el('input', { id: 'signin-username', name: 'username', type: 'text', autocomplete: 'username', required: true, autocapitalize: 'off', spellcheck: 'false' });
  const apiKey = el('input', { id: 'signin-api-key', name: 'apiKey', type: 'password', autocomplete: 'current-password', required: true });
  const submit = el('button', { type: 'submit' }, 'Sign in');
  const form = el(
    'form',
    { class: 'signin', 'data-testid': 'signin-form', 'aria-labelledby': 'signin-title' },
    el('h1', { id: 'signin-title' }, 'Sign in to Strata'),
    el('p', { class: 'hint' }, 'Use your username and API key. The session is kept for this tab only.'),
    el('label', { for: 'signin-username' }, 'Username'),
    username,
    el('label', { for: 'signin-api-key' }, 'API key'),
    apiKey,
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = username.value.trim();
    if (name === '' || apiKey.value === '') {
      context.showMessage('Enter a username and an API key.', 'error');
      return;
    }
    submit.disabled = true;
    submit.textContent = 'Signing in…';
    signIn(name, apiKey.value, controller.signal).then(
      (session) => {
        apiKey.value = '';
        context.onSignedIn(session);
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        submit.disabled = false;
        submit.textContent = 'Sign in';
        context.showMessage(messageOf(error), 'error');
        apiKey.focus();
        apiKey.select();
      },
    );
  });
  root.replaceChildren(form);
  username.focus();
  return () => {
    controller.abort();
    form.remove();
  };
}
