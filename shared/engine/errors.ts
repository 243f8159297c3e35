/**
 * Errors of reading a file. Pure domain: no HTTP here; shared/http maps the codes to statuses
 * (unsupported_format and not_a_spreadsheet → 415, file_too_large → 413, everything else → 422).
 * `unsupported_format`: the name is not .zip/.xlsx/.xls; `not_a_spreadsheet`: the bytes are none of them
 * (a text or PDF file renamed .xlsx). `value_out_of_range`: a number cell no report can hold (read/values.ts);
 * its message is already the seller's (Russian, naming the cell).
 */
export type ReportErrorCode =
  | 'unsupported_format'
  | 'not_a_spreadsheet'
  | 'file_too_large'
  | 'zip_bomb'
  | 'too_many_entries'
  | 'too_many_rows'
  | 'cell_too_long'
  | 'no_report_in_zip'
  | 'missing_headers'
  | 'empty_report'
  | 'corrupt_file'
  | 'value_out_of_range';

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
