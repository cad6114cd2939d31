import { computed, effect, signal } from '@preact/signals';
import { api, ApiError, whenSessionEnds } from './api';
import type { Session } from './types';

/** Who is signed in: undefined while the console asks the server, null when nobody is. */
export const session = signal<Session | null | undefined>(undefined);
/** Why the sign-in screen is shown (the session ended, the password changed …), once. */
export const notice = signal<string | null>(null);

export const user = computed(() => session.value?.user);
/** The tenant's timezone: every time the console shows is in it, with the zone named. */
export const timezone = computed(() => session.value?.tenant.timezone ?? 'UTC');

/** Whether the signed-in user's role (and own grants) allow a permission, as the API will judge it. */
export function can(permission: string): boolean {
  return session.value?.user.permissions.includes(permission) ?? false;
}

/** Asks the server whom the session cookie belongs to (the console cannot read the cookie itself). */
export async function loadSession(): Promise<void> {
  try {
    session.value = await api.get<Session>('/v2/console/session');
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) session.value = null;
    else throw err;
  }
}

export function signedIn(s: Session): void {
  notice.value = null;
  session.value = s;
}

export async function signOut(): Promise<void> {
  try {
    await api.del('/v2/console/session');
  } finally {
    session.value = null;
    notice.value = 'You are signed out.';
  }
}

/** The session ended on the server (sign-out elsewhere, a password change, 12 hours unused): back to sign-in. */
export function sessionEnded(message: string): void {
  if (!session.value) return;
  session.value = null;
  notice.value = message;
}
whenSessionEnds(sessionEnded);

/** The user's own dark mode (its darkMode field) once signed in; before that, the browser's preference. */
effect(() => {
  const dark = session.value?.user.darkMode;
  if (dark === undefined) delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = dark === 1 ? 'dark' : 'light';
});
