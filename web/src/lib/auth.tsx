import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { clearSession, getEmail, getToken, saveSession } from '../api/session';

interface AuthState {
  token: string | null;
  email: string | null;
  signIn: (token: string, email: string) => void;
  signOut: () => void;
}

const AuthContext = createContext<AuthState | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [token, setToken] = useState<string | null>(() => getToken());
  const [email, setEmail] = useState<string | null>(() => getEmail());

  const signIn = useCallback((nextToken: string, nextEmail: string) => {
    saveSession(nextToken, nextEmail);
    setToken(nextToken);
    setEmail(nextEmail);
  }, []);

  const signOut = useCallback(() => {
    clearSession();
    queryClient.clear();
    setToken(null);
    setEmail(null);
  }, [queryClient]);

  const value = useMemo(() => ({ token, email, signIn, signOut }), [token, email, signIn, signOut]);
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthState {
  const state = useContext(AuthContext);
  if (!state) throw new Error('useAuth outside AuthProvider');
  return state;
}
