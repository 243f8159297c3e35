/**
 * Caps on what an uploaded file may make us do (docs/ARCHITECTURE.md: uploaded files are hostile until read).
 * Each cap has its own ReportError code so the API can tell the user which one was hit.
 */
export interface ReadLimits {
  /** Size of the uploaded file itself (zip, xlsx or xls) → file_too_large. */
  maxCompressedBytes: number;
  /** Total bytes inflated from every zip entry read for one file, nested entries included → zip_bomb. */
  maxInflatedBytes: number;
  /** Entries in one zip (the upload or an .xlsx inside it) → too_many_entries. */
  maxEntries: number;
  /** Data rows (header and empty rows excluded) → too_many_rows. */
  maxRows: number;
  /** Characters in one cell; Excel's own limit is 32,767 → cell_too_long. */
  maxCellLength: number;
}

export const DEFAULT_READ_LIMITS: Readonly<ReadLimits> = Object.freeze({
  maxCompressedBytes: 200 * 1024 * 1024,
  maxInflatedBytes: 1536 * 1024 * 1024,
  maxEntries: 1000,
  maxRows: 2_000_000,
  maxCellLength: 32_767,
});

export function resolveLimits(limits?: Partial<ReadLimits>): ReadLimits {
  const out: ReadLimits = { ...DEFAULT_READ_LIMITS };
  if (limits) {
    for (const key of Object.keys(out) as Array<keyof ReadLimits>) {
      const v = limits[key];
      if (v !== undefined) {
        if (!Number.isFinite(v) || v < 0) throw new RangeError(`read limit ${key} must be a non-negative number`);
        out[key] = v;
      }
    }
  }
  return out;
}
