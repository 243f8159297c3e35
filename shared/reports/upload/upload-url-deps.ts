/** The real stores of POST /api/reports/upload-url (upload.ts createUploadUrl): the upload record and S3's presigned PUT. */
import { presignPut } from '../../files/objects';
import { createUpload } from '../../store/uploads.repo';
import type { UploadUrlDeps } from './upload';

export const uploadUrlDeps: UploadUrlDeps = { uploads: { createUpload }, files: { presignPut } };
