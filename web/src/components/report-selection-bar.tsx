import type { CombineJob } from '../api/contract';
import { combineStepText } from '../lib/use-combine-job';
import { plural } from '../lib/format';
import { ConfirmDialog } from './modal';
import { ProgressBar } from './progress-bar';

/** What the ticks allow: combining (from two reports), the summary XLS (from one), clearing them, and why not yet. */
export function ReportSelectionBar({
  count,
  combining,
  exporting,
  onCombine,
  onExport,
  onClear,
}: {
  count: number;
  combining: boolean;
  exporting: boolean;
  onCombine: () => void;
  onExport: () => void;
  onClear: () => void;
}) {
  return (
    <div className="selection-bar" data-testid="selection-bar">
      <span>
        Выбрано: <strong>{count}</strong>
      </span>
      <button
        type="button"
        className="btn btn-primary btn-small"
        disabled={count < 2 || combining}
        title={count < 2 ? 'Выберите хотя бы два отчёта' : undefined}
        onClick={onCombine}
        data-testid="combine-button"
      >
        Объединить
      </button>
      <button
        type="button"
        className="btn btn-small"
        disabled={count === 0 || exporting || combining}
        title={count === 0 ? 'Отметьте отчёты галочками' : undefined}
        onClick={onExport}
        data-testid="summary-button"
      >
        {exporting ? 'Готовим файл…' : 'Сводный XLS'}
      </button>
      {count > 0 ? (
        <button type="button" className="btn btn-ghost btn-small" onClick={onClear}>
          Снять выбор
        </button>
      ) : null}
      <span className="hint" data-testid="selection-hint">
        {count === 0
          ? 'Отметьте отчёты галочками: сводный XLS — по одному или нескольким, объединение — от двух.'
          : count === 1
            ? 'Для объединения отметьте ещё хотя бы один отчёт.'
            : ''}
      </span>
    </div>
  );
}

/** The combine job's progress: starting, then the step the worker is on. */
export function CombineProgress({ job }: { job: CombineJob | null }) {
  return (
    <div className="combine-progress" data-testid="combine-progress">
      <ProgressBar
        label="Объединяем отчёты"
        value={job && job.progress.total > 0 ? job.progress.done / job.progress.total : undefined}
        detail={job ? combineStepText(job) : 'Запускаем…'}
      />
    </div>
  );
}

/** Asks before combining; the optional title is the page's, so it survives closing the dialog. */
export function CombineDialog({
  count,
  title,
  onTitle,
  onConfirm,
  onCancel,
}: {
  count: number;
  title: string;
  onTitle: (title: string) => void;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <ConfirmDialog
      title={`Объединить ${plural(count, ['отчёт', 'отчёта', 'отчётов'])}?`}
      confirmLabel="Объединить"
      onConfirm={onConfirm}
      onCancel={onCancel}
      testId="combine-dialog"
    >
      <p>
        Товары будут сложены по артикулу с учётом ручных корректировок. Исходные отчёты останутся без изменений, лимиты
        не списываются.
      </p>
      <label className="form-field">
        Название (необязательно)
        <input
          type="text"
          value={title}
          maxLength={200}
          onChange={(e) => onTitle(e.target.value)}
          placeholder="Например, Декабрь 2025"
        />
      </label>
    </ConfirmDialog>
  );
}
