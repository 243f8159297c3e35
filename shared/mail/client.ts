import { SESv2Client } from '@aws-sdk/client-sesv2';
import { getConfig } from '../config';

let client: SESv2Client | undefined;

/** One SES v2 client per process (the aws-ses-v2-local emulator's endpoint locally). */
export function ses(): SESv2Client {
  if (!client) {
    const c = getConfig();
    client = new SESv2Client({
      region: c.AWS_REGION,
      endpoint: c.SES_ENDPOINT,
      maxAttempts: 3,
      requestHandler: { connectionTimeout: 3_000, requestTimeout: 10_000 },
    });
  }
  return client;
}
