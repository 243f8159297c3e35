import { z } from 'zod';
import { presentSeller } from '../../shared/catalog/present';
import { http, json, taxProfileSchema, type HttpOptions, type HttpRequest } from '../../shared/http';
import { updateSeller } from '../../shared/store/sellers.repo';

const route = {
  auth: 'user',
  body: z
    .object({ name: z.string().trim().min(1).max(200).optional(), tax: taxProfileSchema.nullable().optional() })
    .strict(),
  path: z.object({ id: z.string() }),
} satisfies HttpOptions;

/**
 * PATCH /api/sellers/{id} {name?, tax?} → the seller. A tax profile is replaced whole; null removes the
 * seller's own profile so the user's default applies. Unknown or another user's seller → 404.
 */
export async function main(req: HttpRequest<typeof route>) {
  return json(
    200,
    presentSeller(await updateSeller(req.user.id, req.path.id, { name: req.body.name, tax: req.body.tax })),
  );
}

export const handler = http(route, main);
