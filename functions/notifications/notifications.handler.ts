import { preferencesDeps as deps } from '../../shared/notifications/deps';
import {
  getNotificationSettings,
  notificationHistory,
  putNotificationSettings,
} from '../../shared/notifications/preferences';
import { routes } from '../../shared/http';

/** ONE Lambda serves the caller's notification settings and history (docs/API.md «Notifications»). */
export const handler = routes({
  /** GET /api/notifications/settings → the settings (defaults until saved) and the channels' state. */
  getNotificationSettings: async (req) => ({ status: 200, body: await getNotificationSettings(deps, req.user) }),
  /** PUT /api/notifications/settings → the settings as saved; 422 invalid_notification_settings (details.field). */
  putNotificationSettings: async (req) => ({
    status: 200,
    body: await putNotificationSettings(deps, req.user, req.body),
  }),
  /** GET /api/notifications?cursor= → {items, next_cursor}, newest first. */
  notificationHistory: async (req) => ({
    status: 200,
    body: await notificationHistory(deps, req.user.id, req.query.cursor),
  }),
});
