import { useRef, type RefObject } from 'react';
import { ErrorMessage } from './error-message';
import { Spinner } from './progress-bar';

/**
 * The controls of a file import (the price list, own costs): an option checkbox, «Выбрать файл» for an
 * .xlsx or .csv, a spinner while the file is sent and checked, and the error of the last try.
 */
export function FileImportControls({
  busy,
  option,
  input,
  onFile,
  error,
  errorTestId,
}: {
  busy: boolean;
  option: { label: string; checked: boolean; onChange: (checked: boolean) => void; testId: string };
  input: { label: string; testId: string; ref: RefObject<HTMLInputElement | null> };
  onFile: (file: File | undefined) => void;
  error: unknown;
  errorTestId: string;
}) {
  return (
    <>
      <label className="checkbox-row">
        <input
          type="checkbox"
          checked={option.checked}
          disabled={busy}
          data-testid={option.testId}
          onChange={(e) => option.onChange(e.target.checked)}
        />
        {option.label}
      </label>
      <div className="button-row">
        <label className={`btn${busy ? ' disabled' : ''}`}>
          {busy ? 'Импортируем…' : 'Выбрать файл'}
          <input
            ref={input.ref}
            type="file"
            className="visually-hidden"
            accept=".xlsx,.csv"
            aria-label={input.label}
            data-testid={input.testId}
            disabled={busy}
            onChange={(e) => onFile(e.target.files?.[0])}
          />
        </label>
        {busy ? <Spinner label="Загружаем и проверяем файл…" /> : null}
      </div>
      <ErrorMessage error={error} testId={errorTestId} />
    </>
  );
}

/**
 * «Загрузить из файла (.xlsx, .csv)»: a small button that hands the chosen file to `onFile` and clears
 * itself, so the same file can be chosen again (period costs, purchases).
 */
export function FileButton({ testId, onFile }: { testId: string; onFile: (file: File) => void }) {
  const ref = useRef<HTMLInputElement>(null);
  return (
    <label className="btn btn-ghost btn-small">
      Загрузить из файла (.xlsx, .csv)
      <input
        ref={ref}
        type="file"
        accept=".xlsx,.csv,text/csv"
        hidden
        data-testid={testId}
        onChange={(e) => {
          const f = e.target.files?.[0];
          if (f) onFile(f);
          if (ref.current) ref.current.value = '';
        }}
      />
    </label>
  );
}
