import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import type { Report } from '../api/contract';
import { ErrorMessage } from './error-message';
import { SellerOptions } from './seller-options';

/**
 * Renaming a report and linking it to one of the user's sellers (PATCH /api/reports/{id}). Closed it
 * is one «Изменить название и продавца» button; open, a small form.
 */
export function ReportMetaForm({ report }: { report: Report }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [title, setTitle] = useState(report.title);
  const [sellerId, setSellerId] = useState(report.seller?.id ?? '');
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>(null);

  if (!open) {
    return (
      <button
        type="button"
        className="link-button"
        data-testid="report-meta-edit"
        onClick={() => {
          setTitle(report.title);
          setSellerId(report.seller?.id ?? '');
          setOpen(true);
        }}
      >
        Изменить название и продавца
      </button>
    );
  }

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    const patch: { title?: string; seller_id?: string | null } = {};
    if (title.trim() !== report.title) patch.title = title.trim();
    if (sellerId !== (report.seller?.id ?? '')) patch.seller_id = sellerId || null;
    if (Object.keys(patch).length === 0) {
      setOpen(false);
      return;
    }
    setSaving(true);
    try {
      await api.patchReport(report.id, patch);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: ['report', report.id] }),
        queryClient.invalidateQueries({ queryKey: ['reports'] }),
      ]);
      setOpen(false);
    } catch (err) {
      setError(err);
    } finally {
      setSaving(false);
    }
  };

  return (
    <form className="report-meta-form" onSubmit={(e) => void submit(e)} data-testid="report-meta-form">
      <label>
        Название
        <input
          type="text"
          value={title}
          maxLength={200}
          required
          onChange={(e) => setTitle(e.target.value)}
          aria-label="Название отчёта"
        />
      </label>
      <label>
        Продавец
        <select value={sellerId} onChange={(e) => setSellerId(e.target.value)} aria-label="Продавец отчёта">
          <SellerOptions empty="Не указан" />
        </select>
      </label>
      <div className="button-row">
        <button type="submit" className="btn btn-primary btn-small" disabled={saving || title.trim() === ''}>
          {saving ? 'Сохраняем…' : 'Сохранить'}
        </button>
        <button type="button" className="btn btn-small" onClick={() => setOpen(false)} disabled={saving}>
          Отмена
        </button>
      </div>
      <ErrorMessage error={error} testId="report-meta-error" />
    </form>
  );
}
