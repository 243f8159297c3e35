import { expect } from 'vitest';
import type { ApiReport } from '../../shared/reports/present-report';
import { ensureSeed } from '../../shared/store/seed';
import { startEmulators, type Emulators } from './emulators';
import { startOffline, type Offline } from './offline';
import { httpApi, type HttpCall } from './sign-up';

export interface E2eStack {
  emulators: Emulators;
  offline: Offline;
  /** JSON calls to the API served by serverless-offline. */
  call: HttpCall;
  stop(): Promise<void>;
}

/**
 * The API over real HTTP for an e2e suite: the emulators, this process pointed at them (the tests also
 * read the store directly), the roles seeded as `npm start` seeds them (registration gives `seller`
 * only when that role exists), and serverless-offline serving the bundled handlers. A failed start
 * stops what had started.
 */
export async function startE2eStack(): Promise<E2eStack> {
  const emulators = await startEmulators();
  try {
    Object.assign(process.env, emulators.env);
    await ensureSeed();
    const offline = await startOffline(emulators.env);
    return {
      emulators,
      offline,
      call: httpApi(offline.apiUrl),
      stop: async () => {
        await offline.stop();
        await emulators.stop();
      },
    };
  } catch (e) {
    await emulators.stop();
    throw e;
  }
}

type UploadedFile = { filename: string; file: Buffer };

/** upload-url → the PUT to the presigned URL, as the page does: the upload id (nothing uploaded yet). */
export async function putUpload(call: HttpCall, token: string, file: UploadedFile): Promise<string> {
  const target = await call<{ upload_id: string; url: string; method: string; headers: Record<string, string> }>(
    'POST',
    '/reports/upload-url',
    { token, body: { filename: file.filename, size: file.file.length } },
  );
  expect(target.status).toBe(200);
  const put = await fetch(target.body.url, {
    method: target.body.method,
    body: file.file,
    headers: target.body.headers,
  });
  expect(put.status).toBe(200);
  return target.body.upload_id;
}

/** putUpload → POST /reports/upload, answered 201: the report. */
export async function uploadFile(call: HttpCall, token: string, file: UploadedFile): Promise<ApiReport> {
  const uploaded = await call<{ report: ApiReport }>('POST', '/reports/upload', {
    token,
    body: { upload_id: await putUpload(call, token, file) },
  });
  expect(uploaded.status, JSON.stringify(uploaded.body).slice(0, 300)).toBe(201);
  return uploaded.body.report;
}
