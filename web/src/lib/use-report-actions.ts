import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api, saveFile } from '../api/client';
import type { ReportSummary } from '../api/contract';

/**
 * The reports list's one-shot actions: deleting a report and the summary XLS of the ticked ones (with
 * the ids of those the API said are stale, `exportedStale`). Errors
 * go to `setError`, which each action clears first (the page shows one error for all its actions).
 */
export function useReportActions(setError: (error: unknown) => void) {
  const queryClient = useQueryClient();
  const [deleting, setDeleting] = useState(false);
  const [exporting, setExporting] = useState(false);
  // The reports of the last summary export that the API said are stale ([] when none).
  const [exportedStale, setExportedStale] = useState<string[]>([]);

  /** Deletes the report and forgets it; resolves once the list is refetched (or the delete failed). */
  const deleteReport = async (report: ReportSummary) => {
    setDeleting(true);
    setError(null);
    try {
      await api.deleteReport(report.id);
      queryClient.removeQueries({ queryKey: ['report', report.id] });
      await queryClient.invalidateQueries({ queryKey: ['reports'] });
    } catch (e) {
      setError(e);
    } finally {
      setDeleting(false);
    }
  };

  const exportSummary = async (reportIds: string[]) => {
    setExporting(true);
    setError(null);
    setExportedStale([]);
    try {
      const { file, staleIds } = await api.summaryExport(reportIds);
      saveFile(file);
      setExportedStale(staleIds);
    } catch (e) {
      setError(e);
    } finally {
      setExporting(false);
    }
  };

  return { deleting, deleteReport, exporting, exportSummary, exportedStale };
}
