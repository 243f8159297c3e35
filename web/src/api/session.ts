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

export function clearSession(): void {
  window.localStorage.removeItem(TOKEN_KEY);
  window.localStorage.removeItem(EMAIL_KEY);
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
