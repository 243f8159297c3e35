import { unsubscribeDeps as deps } from '../../shared/notifications/deps';
import { unsubscribe, unsubscribePage } from '../../shared/notifications/preferences';
import { binary } from '../../shared/http/responses';
import { bindRoutes } from '../../shared/http/route';

const page = (r: Awaited<ReturnType<typeof unsubscribe>>, token: string | undefined) =>
  binary(Buffer.from(unsubscribePage(r, token), 'utf8'), {
    contentType: 'text/html; charset=utf-8',
    status: r.status === 'invalid' ? 400 : 200,
  });

/**
 * The digest's unsubscribe link, public (no sign-in; the token is signed): GET shows the question with
 * its button, POST (the button, or a mail service's RFC 8058 one-click) unsubscribes.
 */
export const handler = bindRoutes(
  {
    unsubscribeConfirm: async (req) => page(await unsubscribe(deps, req.query.token, false), req.query.token),
    unsubscribe: async (req) => page(await unsubscribe(deps, req.query.token, true), req.query.token),
  },
  {},
  null,
);
