import { useEffect, useRef, useState, type DragEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { api, putFileWithProgress } from '../api/client';
import { ApiError, pluralRows } from '../api/errors';
import type { RowCount } from '../api/contract';
import { countRowsInBrowser } from '../lib/count-rows';
import { formatBytes, formatInt } from '../lib/format';
import { useUploads } from '../lib/uploads';
import { ErrorMessage } from './error-message';
import { ProgressBar, Spinner } from './progress-bar';
import { SupportContact } from '../lib/app-config';

const ACCEPTED = ['zip', 'xlsx', 'xls'];

type Stage =
  | { kind: 'idle' }
  | { kind: 'precounting'; file: File }
  | { kind: 'refused'; file: File; rows: number; limits: number }
  | { kind: 'sending'; file: File; loaded: number; total: number }
  | { kind: 'counting'; file: File }
  | { kind: 'preview'; file: File; uploadId: string; count: RowCount }
  | { kind: 'processing'; file: File; count: RowCount }
  | { kind: 'failed'; file: File | null; error: unknown; count?: RowCount; uploadId?: string };

const isRetryable = (error: unknown) => error instanceof ApiError && (error.status === 0 || error.status >= 500);

const extensionOf = (name: string) => name.split('.').pop()?.toLowerCase() ?? '';

/**
 * Upload in visible steps: rows counted in the browser (a file the limits cannot take is refused here,
 * nothing sent) → presigned URL → PUT with real progress → the server's row count preview (charges
 * nothing) → confirmed upload, then the new report opens.
 */
export function UploadPanel() {
  const [stage, setStage] = useState<Stage>({ kind: 'idle' });
  const [dragging, setDragging] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const abortRef = useRef<AbortController | null>(null);
  const queryClient = useQueryClient();
  const uploads = useUploads();
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );

  useEffect(() => () => abortRef.current?.abort(), []);

  const busy =
    stage.kind === 'precounting' ||
    stage.kind === 'sending' ||
    stage.kind === 'counting' ||
    stage.kind === 'processing';

  const start = async (file: File) => {
    if (!ACCEPTED.includes(extensionOf(file.name))) {
      setStage({
        kind: 'failed',
        file,
        error: new ApiError(
          415,
          'unsupported_format',
          'Этот тип файла не поддерживается. Загрузите отчёт в формате .zip, .xlsx или .xls.',
        ),
      });
      return;
    }
    if (file.size === 0) {
      setStage({ kind: 'failed', file, error: new ApiError(422, 'empty_report', 'Файл пустой.') });
      return;
    }
    // Limits before the bytes travel: the rows are counted here and a file the limits cannot take is
    // refused with nothing sent (the server counts again and charges what it counts).
    setStage({ kind: 'precounting', file });
    const [counted, limits] = await Promise.all([
      countRowsInBrowser(file),
      queryClient
        .fetchQuery({ queryKey: ['me'], queryFn: api.me, staleTime: 0 })
        .then((me) => me.user.limits)
        .catch(() => null),
    ]);
    if (counted && limits !== null && counted.rows > limits) {
      setStage({ kind: 'refused', file, rows: counted.rows, limits });
      return;
    }
    const abort = new AbortController();
    abortRef.current = abort;
    setStage({ kind: 'sending', file, loaded: 0, total: file.size });
    try {
      const target = await api.uploadUrl(file.name, file.size);
      await putFileWithProgress(
        target,
        file,
        (loaded, total) => setStage((s) => (s.kind === 'sending' && s.file === file ? { ...s, loaded, total } : s)),
        abort.signal,
      );
      setStage({ kind: 'counting', file });
      const count = await api.countRows(target.upload_id);
      setStage({ kind: 'preview', file, uploadId: target.upload_id, count });
    } catch (error) {
      if (error instanceof DOMException && error.name === 'AbortError') {
        setStage({ kind: 'idle' });
        return;
      }
      setStage({ kind: 'failed', file, error });
    } finally {
      if (abortRef.current === abort) abortRef.current = null;
    }
  };

  // The upload request belongs to the uploads tracker (lib/uploads.tsx): it survives leaving this page,
  // opens the report when it is ready here, and is followed in the tray while the server processes it.
  const confirmUpload = async (file: File, uploadId: string, count: RowCount) => {
    setStage({ kind: 'processing', file, count });
    try {
      // The preview named the duplicate and the user chose to upload it anyway.
      await uploads.submit(uploadId, file.name, Boolean(count.duplicate_of));
      if (mounted.current) setStage({ kind: 'idle' });
    } catch (error) {
      // Limits may have changed between the preview and now; show the fresh numbers.
      void queryClient.invalidateQueries({ queryKey: ['me'] });
      if (mounted.current) setStage({ kind: 'failed', file, error, count, uploadId });
    }
  };

  const pick = (files: FileList | null) => {
    const file = files?.[0];
    if (file && !busy) void start(file);
  };

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    pick(event.dataTransfer.files);
  };

  const reset = () => {
    abortRef.current?.abort();
    setStage({ kind: 'idle' });
    if (inputRef.current) inputRef.current.value = '';
  };

  return (
    <section className="panel upload-panel" aria-labelledby="upload-title">
      <h2 id="upload-title">Загрузить отчёт</h2>
      {stage.kind === 'idle' || stage.kind === 'failed' || stage.kind === 'refused' ? (
        <div
          className={`dropzone${dragging ? ' dragging' : ''}`}
          data-testid="dropzone"
          onDragOver={(e) => {
            e.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
        >
          <div className="dropzone-icon" aria-hidden="true">
            ⇪
          </div>
          <div>
            Перетащите сюда детализированный отчёт Wildberries или{' '}
            <label className="link-button">
              выберите файл
              <input
                ref={inputRef}
                type="file"
                className="visually-hidden"
                accept=".zip,.xlsx,.xls"
                aria-label="Выбрать файл отчёта"
                data-testid="upload-input"
                onChange={(e) => pick(e.target.files)}
              />
            </label>
          </div>
          <div className="muted small">Форматы: .zip (как скачано из кабинета), .xlsx, .xls</div>
        </div>
      ) : null}

      {stage.kind === 'precounting' ? (
        <div className="upload-step">
          <FileLine file={stage.file} />
          <ProgressBar label="Считаем строки отчёта на вашем компьютере" testId="upload-precounting" />
        </div>
      ) : null}

      {stage.kind === 'refused' ? (
        <div className="upload-step" data-testid="upload-refused">
          <FileLine file={stage.file} />
          <div className="alert alert-error" role="alert" data-testid="upload-blocked-early">
            Недостаточно лимитов: в отчёте {pluralRows(stage.rows)}, а у вас осталось {pluralRows(stage.limits)}. Не
            хватает {pluralRows(stage.rows - stage.limits)}. Файл не отправлен.{' '}
            <SupportContact what="чтобы пополнить лимит" />
          </div>
        </div>
      ) : null}

      {stage.kind === 'sending' ? (
        <div className="upload-step">
          <FileLine file={stage.file} />
          <ProgressBar
            testId="upload-progress"
            label="Передаём файл"
            value={stage.total > 0 ? stage.loaded / stage.total : 0}
            detail={`${formatBytes(stage.loaded)} из ${formatBytes(stage.total)} · ${stage.total > 0 ? Math.round((stage.loaded / stage.total) * 100) : 0} %`}
          />
          <button type="button" className="btn btn-small" onClick={reset}>
            Отменить
          </button>
        </div>
      ) : null}

      {stage.kind === 'counting' ? (
        <div className="upload-step">
          <FileLine file={stage.file} />
          <ProgressBar label="Считаем строки отчёта" testId="upload-counting" />
        </div>
      ) : null}

      {stage.kind === 'preview' ? (
        <div className="upload-step" data-testid="upload-preview">
          <FileLine file={stage.file} />
          <CountSummary count={stage.count} />
          {stage.count.duplicate_of ? (
            <div className="alert alert-warning" role="alert" data-testid="upload-duplicate">
              Этот отчёт уже загружен: <DuplicateLink dup={stage.count.duplicate_of} />. Повторная загрузка спишет
              лимиты ещё раз, и отчёт будет в списке дважды.
            </div>
          ) : null}
          {stage.count.enough ? (
            <p className="preview-line" data-testid="upload-charge">
              Будет списано <strong>{pluralRows(stage.count.rows)}</strong>, у вас{' '}
              <strong>{formatInt(stage.count.limits)}</strong>, останется{' '}
              <strong>{formatInt(stage.count.limits - stage.count.rows)}</strong>.
            </p>
          ) : (
            <div className="alert alert-error" role="alert" data-testid="upload-blocked">
              Недостаточно лимитов: в отчёте {pluralRows(stage.count.rows)}, а у вас осталось{' '}
              {pluralRows(stage.count.limits)}. Не хватает {pluralRows(stage.count.rows - stage.count.limits)}.{' '}
              <SupportContact what="чтобы пополнить лимит" />
            </div>
          )}
          <div className="button-row">
            <button
              type="button"
              className="btn btn-primary"
              disabled={!stage.count.enough}
              onClick={() => void confirmUpload(stage.file, stage.uploadId, stage.count)}
            >
              {stage.count.duplicate_of ? 'Всё равно загрузить' : 'Загрузить отчёт'}
            </button>
            <button type="button" className="btn" onClick={reset}>
              Отмена
            </button>
          </div>
        </div>
      ) : null}

      {stage.kind === 'processing' ? (
        <div className="upload-step">
          <FileLine file={stage.file} />
          <ProgressBar label={`Обрабатываем отчёт: ${pluralRows(stage.count.rows)}`} testId="upload-processing" />
          <Spinner label="Считаем прибыль по артикулам. Можно уйти со страницы: обработка продолжится, а мы сообщим, когда отчёт будет готов." />
        </div>
      ) : null}

      {stage.kind === 'failed' ? (
        <div className="upload-step" data-testid="upload-failed">
          {stage.file ? <FileLine file={stage.file} /> : null}
          <ErrorMessage error={stage.error} testId="upload-error" />
          {stage.uploadId && stage.count && isRetryable(stage.error) ? (
            <div className="button-row">
              <button
                type="button"
                className="btn"
                onClick={() =>
                  void confirmUpload(stage.file as File, stage.uploadId as string, stage.count as RowCount)
                }
              >
                Повторить
              </button>
            </div>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}

function DuplicateLink({ dup }: { dup: NonNullable<RowCount['duplicate_of']> }) {
  const day = new Date(dup.created_at);
  return (
    <>
      <Link to={`/reports/${encodeURIComponent(dup.id)}`}>«{dup.title}»</Link>
      {Number.isNaN(day.getTime()) ? null : <> от {day.toLocaleDateString('ru-RU')}</>}
    </>
  );
}

function FileLine({ file }: { file: File }) {
  return (
    <div className="file-line">
      <span className="file-icon" aria-hidden="true">
        ▤
      </span>
      <span className="file-name">{file.name}</span>
      <span className="muted">{formatBytes(file.size)}</span>
    </div>
  );
}

function CountSummary({ count }: { count: RowCount }) {
  return (
    <dl className="facts">
      <div>
        <dt>Строк в отчёте</dt>
        <dd data-testid="upload-rows">{formatInt(count.rows)}</dd>
      </div>
      <div>
        <dt>Формат</dt>
        <dd>{count.format.toUpperCase()}</dd>
      </div>
      {count.report_number ? (
        <div>
          <dt>Номер отчёта</dt>
          <dd>{count.report_number}</dd>
        </div>
      ) : null}
      {count.seller_number ? (
        <div>
          <dt>Продавец</dt>
          <dd>{count.seller_number}</dd>
        </div>
      ) : null}
    </dl>
  );
}
