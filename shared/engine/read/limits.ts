/**
 * Caps on what an uploaded file may make us do (docs/ARCHITECTURE.md: uploaded files are hostile until read).
 * Each cap has its own ReportError code so the API can tell the user which one was hit.
 */
export interface ReadLimits {
  /** Size of the uploaded file itself (zip, xlsx or xls) → file_too_large. */
  maxCompressedBytes: number;
  /** Total bytes inflated from every zip entry read for one file, nested entries included → zip_bomb. */
  maxInflatedBytes: number;
  /**
   * Bytes inflated per byte of the file, once past the first 256 MB → zip_bomb (inflateCap). A portal
   * report inflates about 10×; a bomb a thousand times, and is stopped long before maxInflatedBytes.
   */
  maxInflateRatio: number;
  /** Entries in one zip (the upload or an .xlsx inside it) → too_many_entries. */
  maxEntries: number;
  /** Data rows (header and empty rows excluded) → too_many_rows. */
  maxRows: number;
  /** Characters in one cell; Excel's own limit is 32,767 → cell_too_long. */
  maxCellLength: number;
}

export const DEFAULT_READ_LIMITS: Readonly<ReadLimits> = Object.freeze({
  // A 1M-row week from the portal: a ~370 MB zip holding ~3 GB of sheet XML (docs/WB-REPORT.md, Caps).
  maxCompressedBytes: 512 * 1024 * 1024,
  maxInflatedBytes: 4 * 1024 * 1024 * 1024,
  maxInflateRatio: 100,
  maxEntries: 1000,
  maxRows: 2_000_000,
  maxCellLength: 32_767,
});

/** Inflated bytes below which the ratio cap does not apply (a small file may inflate far). */
const RATIO_FREE_INFLATED_BYTES = 256 * 1024 * 1024;

/** How many bytes a file of `size` bytes may inflate to in all: maxInflatedBytes, capped by the ratio. */
export function inflateCap(size: number, limits: ReadLimits): number {
  return Math.min(limits.maxInflatedBytes, Math.max(RATIO_FREE_INFLATED_BYTES, size * limits.maxInflateRatio));
}

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
