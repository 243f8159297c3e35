/**
 * Errors of reading a file. Pure domain: no HTTP here; shared/http maps the codes to statuses
 * (unsupported_format → 415, file_too_large → 413, everything else → 422).
 */
export type ReportErrorCode =
  | 'unsupported_format'
  | 'file_too_large'
  | 'zip_bomb'
  | 'too_many_entries'
  | 'too_many_rows'
  | 'cell_too_long'
  | 'no_report_in_zip'
  | 'missing_headers'
  | 'empty_report'
  | 'corrupt_file';

export class ReportError extends Error {
  constructor(
    readonly code: ReportErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ReportError';
  }
}
