// The signed-in state lives in localStorage so it survives reloads and tabs (browser tests read it too).
export const TOKEN_KEY = 'svc_token';
export const EMAIL_KEY = 'svc_email';

export function getToken(): string | null {
  try {
    return window.localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function getEmail(): string | null {
  try {
    return window.localStorage.getItem(EMAIL_KEY);
  } catch {
    return null;
  }
}

export function saveSession(token: string, email: string): void {
  window.localStorage.setItem(TOKEN_KEY, token);
  window.localStorage.setItem(EMAIL_KEY, email);
}

/** The address of the last session, kept after it ends so the sign-in page can offer it again. */
export const LAST_EMAIL_KEY = 'svc_last_email';

export function clearSession(): void {
  const email = getEmail();
  if (email) window.localStorage.setItem(LAST_EMAIL_KEY, email);
  window.localStorage.removeItem(TOKEN_KEY);
  window.localStorage.removeItem(EMAIL_KEY);
}

/** The email of the session that ended last (sign-in page pre-fill), or ''. */
export function lastEmail(): string {
  try {
    return window.localStorage.getItem(LAST_EMAIL_KEY) ?? '';
  } catch {
    return '';
  }
}

/** A rejected token ends the session: forget it and start the page over on the sign-in screen. */
export function endSessionAndReload(): void {
  clearSession();
  try {
    // Lets the sign-in page say why the person is back there.
    window.sessionStorage.setItem(SESSION_ENDED_KEY, '1');
  } catch {
    // storage may be unavailable (private mode quotas); the reload still happens
  }
  window.location.reload();
}

export const SESSION_ENDED_KEY = 'svc_session_ended';

/** True once after a rejected token ended the session. */
export function sessionJustEnded(): boolean {
  try {
    return window.sessionStorage.getItem(SESSION_ENDED_KEY) === '1';
  } catch {
    return false;
  }
}

export function forgetSessionEnded(): void {
  try {
    window.sessionStorage.removeItem(SESSION_ENDED_KEY);
  } catch {
    // nothing to forget
  }
}
