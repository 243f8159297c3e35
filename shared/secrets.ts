/**
 * Secrets out of the environment (docs/OPERATIONS.md, "Secrets"). On AWS a secret is an SSM Parameter
 * Store SecureString whose name is a setting (`JWT_SECRET_PARAMETER`); it is read with Powertools
 * Parameters, decrypted, and cached for `SECRET_MAX_AGE_S` so a rotated value reaches every warm function
 * within that time; only the functions that use it may read it (IAM, per function). Locally and in
 * tests the same code takes the value from the environment (`JWT_SECRET`).
 *
 * Reading is asynchronous and signing a token is not: the HTTP stack loads the secrets a route needs
 * before the route runs (`loadSecrets`), and code reads them synchronously (`secret`).
 */
import { getConfig, type Config } from './config';

export type SecretName = 'jwt' | 'telegramBot' | 'telegramWebhook';

const SOURCES: Record<SecretName, { value: keyof Config; parameter: keyof Config }> = {
  jwt: { value: 'JWT_SECRET', parameter: 'JWT_SECRET_PARAMETER' },
  telegramBot: { value: 'TELEGRAM_BOT_TOKEN', parameter: 'TELEGRAM_BOT_TOKEN_PARAMETER' },
  telegramWebhook: { value: 'TELEGRAM_WEBHOOK_SECRET', parameter: 'TELEGRAM_WEBHOOK_SECRET_PARAMETER' },
};

/** How long a read value is used before it is read again (seconds). */
export const SECRET_MAX_AGE_S = 300;

/** Reads one SecureString, decrypted (Powertools caches it for maxAge). Injected in unit tests. */
export type ParameterReader = (name: string, maxAgeSeconds: number) => Promise<string | undefined>;

const ssmReader: ParameterReader = async (name, maxAge) => {
  const { getParameter } = await import('@aws-lambda-powertools/parameters/ssm');
  return getParameter(name, { decrypt: true, maxAge });
};

const loaded = new Map<SecretName, string>();

export async function loadSecrets(names: readonly SecretName[], read: ParameterReader = ssmReader): Promise<void> {
  const c = getConfig();
  await Promise.all(
    names.map(async (n) => {
      const parameter = c[SOURCES[n].parameter] as string | undefined;
      if (!parameter) return;
      const v = await read(parameter, SECRET_MAX_AGE_S);
      if (!v || v.length < 16)
        throw new Error(`secret ${n}: parameter ${parameter} is empty or shorter than 16 characters`);
      loaded.set(n, v);
    }),
  );
}

/** A secret's value: the one read from its parameter, else the local setting. */
export function secret(n: SecretName): string {
  const v = loaded.get(n) ?? (getConfig()[SOURCES[n].value] as string | undefined);
  if (!v) throw new Error(`secret ${n} is not loaded: call loadSecrets(['${n}']) first`);
  return v;
}

/** A secret that may be left unset (Telegram's): its value, or undefined when neither source gives one. */
export function optionalSecret(n: SecretName): string | undefined {
  return loaded.get(n) ?? ((getConfig()[SOURCES[n].value] as string | undefined) || undefined);
}

/** Forgets what was read: the next loadSecrets reads every parameter again. */
export function resetSecrets(): void {
  loaded.clear();
}
