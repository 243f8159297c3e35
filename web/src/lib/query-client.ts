import { QueryClient } from '@tanstack/react-query';
import { ApiError } from '../api/errors';

/** Retry only what may pass on a second try: no answer at all, or a server error. */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: (count, error) => count < 1 && error instanceof ApiError && (error.status === 0 || error.status >= 500),
        refetchOnWindowFocus: false,
        staleTime: 15_000,
      },
      mutations: { retry: false },
    },
  });
}
