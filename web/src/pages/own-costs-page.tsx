import { useRef, useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import type { OwnCostImportResult, OwnCostLineJson } from '../api/contract';
import { ErrorMessage } from '../components/error-message';
import { FileImportControls } from '../components/file-import-controls';
import { Spinner } from '../components/progress-bar';
import { formatDate, formatDateTime, formatInt, formatMoney, parseNumberInput } from '../lib/format';
import { useTitle } from '../lib/use-title';

/** «Все артикулы» for the default line of a name. */
const DEFAULT_LINE_LABEL = 'Все артикулы';

const lineKey = (l: Pick<OwnCostLineJson, 'article' | 'name'>) => JSON.stringify([l.article, l.name]);

/**
 * «Свои расходы»: the seller's own per-unit costs (packaging, fulfilment, labelling…), a line for every
 * article or for one article, each with dated amounts; they enter each article's profit like the cost
 * price (docs/METRICS.md, Own per-unit costs). Add, change (a new amount from a date), delete, import.
 */
export function OwnCostsPage() {
  useTitle('Свои расходы');
  const lines = useQuery({ queryKey: ['own-costs'], queryFn: api.listOwnCosts });
  const [editing, setEditing] = useState<OwnCostLineJson | null>(null);
  const items = lines.data?.items ?? [];

  return (
    <div className="page">
      <div className="page-head">
        <h1>Свои расходы</h1>
        <p className="muted">
          Расходы на единицу товара, которых нет в отчёте WB: упаковка, фулфилмент, маркировка. Строка «
          {DEFAULT_LINE_LABEL}» действует для каждого артикула; строка артикула с тем же названием заменяет её для этого
          артикула (0 — расход не нужен). Сумма × чистые продажи входит в расходы и прибыль, как себестоимость; К
          выплате не меняется. Отчёт берёт сумму, действующую на середину своего периода; отчёты, которых касается
          изменение, пересобираются сами (ручные правки сохраняются).
        </p>
      </div>

      <OwnCostForm key={editing ? lineKey(editing) : 'new'} editing={editing} onDone={() => setEditing(null)} />

      <ImportPanel />

      <section className="panel" aria-labelledby="own-costs-title">
        <div className="panel-head">
          <h2 id="own-costs-title">Строки расходов</h2>
          {lines.data?.updated_at ? (
            <span className="muted small">Изменено {formatDateTime(lines.data.updated_at)}</span>
          ) : null}
        </div>
        {lines.isPending ? (
          <Spinner label="Загружаем свои расходы…" />
        ) : lines.isError ? (
          <ErrorMessage error={lines.error} />
        ) : items.length === 0 ? (
          <div className="empty-state" data-testid="own-costs-empty">
            Своих расходов пока нет. Добавьте строку выше или импортируйте файл.
          </div>
        ) : (
          <div className="table-wrap">
            <table className="data-table" data-testid="own-costs-table">
              <thead>
                <tr>
                  <th>Артикул</th>
                  <th>Статья</th>
                  <th className="num">Сейчас за шт, ₽</th>
                  <th>По датам</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {items.map((l) => (
                  <OwnCostRow key={lineKey(l)} line={l} onEdit={() => setEditing(l)} />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}

function useRefreshAfterChange() {
  const queryClient = useQueryClient();
  return async () => {
    await queryClient.invalidateQueries({ queryKey: ['own-costs'] });
    // Reports the change covers are rebuilt by themselves (rebuild-covered.ts): their pages show it.
    void queryClient.invalidateQueries({ queryKey: ['report'] });
    void queryClient.invalidateQueries({ queryKey: ['reports'] });
  };
}

function OwnCostRow({ line, onEdit }: { line: OwnCostLineJson; onEdit: () => void }) {
  const refresh = useRefreshAfterChange();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const id = lineKey(line);

  const remove = async (validFrom?: string | null) => {
    setBusy(true);
    setError(null);
    try {
      await api.deleteOwnCost(line, validFrom);
      await refresh();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <tr data-testid={`own-cost-row-${id}`}>
      <td>{line.article ?? <span className="muted">{DEFAULT_LINE_LABEL}</span>}</td>
      <td>{line.name}</td>
      <td className="num">{formatMoney(line.amount)}</td>
      <td>
        <ul className="own-cost-amounts">
          {line.amounts.map((a) => (
            <li key={a.valid_from ?? ''}>
              {a.valid_from ? `с ${formatDate(a.valid_from)}` : 'с начала'}: {formatMoney(a.amount)}
              {line.amounts.length > 1 ? (
                <button
                  type="button"
                  className="link-button own-cost-remove"
                  aria-label={`Удалить сумму ${a.valid_from ? `с ${formatDate(a.valid_from)}` : 'с начала'}`}
                  disabled={busy}
                  onClick={() => void remove(a.valid_from)}
                >
                  ×
                </button>
              ) : null}
            </li>
          ))}
        </ul>
        {error ? <ErrorMessage error={error} /> : null}
      </td>
      <td className="nowrap">
        <button type="button" className="btn btn-small" disabled={busy} onClick={onEdit}>
          Изменить
        </button>{' '}
        <button
          type="button"
          className="btn btn-small"
          disabled={busy}
          data-testid={`own-cost-delete-${id}`}
          onClick={() => void remove()}
        >
          Удалить
        </button>
      </td>
    </tr>
  );
}

/** Add a line, or give an existing one (`editing`) a new amount from a date. */
function OwnCostForm({ editing, onDone }: { editing: OwnCostLineJson | null; onDone: () => void }) {
  const refresh = useRefreshAfterChange();
  const [article, setArticle] = useState(editing?.article ?? '');
  const [name, setName] = useState(editing?.name ?? '');
  const [amount, setAmount] = useState('');
  const [validFrom, setValidFrom] = useState('');
  const [invalid, setInvalid] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    const value = parseNumberInput(amount);
    if (name.trim() === '') return setInvalid('Укажите статью расхода');
    if (value === null || value < 0) return setInvalid('Сумма — число ≥ 0');
    // Fractions of a kopeck are refused, as the server refuses them (422 value_out_of_range).
    if (Math.abs(value * 100 - Math.round(value * 100)) > 1e-6) return setInvalid('Не больше 2 знаков после запятой');
    setInvalid('');
    setBusy(true);
    setError(null);
    try {
      await api.putOwnCost({
        article: article.trim() === '' ? null : article.trim(),
        name: name.trim(),
        amount: Math.round(value * 100) / 100,
        ...(validFrom ? { valid_from: validFrom } : {}),
      });
      await refresh();
      setSaved(true);
      setAmount('');
      setValidFrom('');
      if (editing) onDone();
      else {
        setArticle('');
        setName('');
      }
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="panel" aria-labelledby="own-cost-form-title">
      <h2 id="own-cost-form-title">{editing ? 'Новая сумма строки' : 'Добавить расход'}</h2>
      <form className="form own-cost-form" onSubmit={(e) => void submit(e)} data-testid="own-cost-form">
        <label>
          Артикул
          <input
            value={article}
            placeholder={DEFAULT_LINE_LABEL}
            disabled={busy || editing !== null}
            onChange={(e) => setArticle(e.target.value)}
            data-testid="own-cost-article"
          />
        </label>
        <label>
          Статья
          <input
            value={name}
            placeholder="Упаковка"
            maxLength={100}
            disabled={busy || editing !== null}
            onChange={(e) => setName(e.target.value)}
            data-testid="own-cost-name"
          />
        </label>
        <label>
          Сумма за шт, ₽
          <input
            value={amount}
            inputMode="decimal"
            placeholder="12,50"
            disabled={busy}
            onChange={(e) => setAmount(e.target.value)}
            data-testid="own-cost-amount"
          />
        </label>
        <label>
          Действует с
          <input
            type="date"
            value={validFrom}
            disabled={busy}
            onChange={(e) => setValidFrom(e.target.value)}
            data-testid="own-cost-valid-from"
          />
        </label>
        <div className="button-row">
          <button type="submit" className="btn btn-primary" disabled={busy} data-testid="own-cost-save">
            {busy ? 'Сохраняем…' : 'Сохранить'}
          </button>
          {editing ? (
            <button type="button" className="btn" disabled={busy} onClick={onDone}>
              Отмена
            </button>
          ) : null}
          {saved ? (
            <span className="save-state" aria-live="polite">
              ✓ Сохранено
            </span>
          ) : null}
        </div>
      </form>
      <p className="muted small">
        Без даты новая строка действует с начала, а новая сумма существующей строки — с сегодняшнего дня: старые отчёты
        её не получат, пока вы не укажете дату раньше их периода.
      </p>
      {invalid ? (
        <div className="alert alert-warning" role="alert" data-testid="own-cost-invalid">
          {invalid}
        </div>
      ) : null}
      <ErrorMessage error={error} />
    </section>
  );
}

function ImportPanel() {
  const refresh = useRefreshAfterChange();
  const inputRef = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [allowUnknown, setAllowUnknown] = useState(false);
  const [result, setResult] = useState<{ file: File; result: OwnCostImportResult } | null>(null);

  const onFile = async (file: File | undefined, allow = allowUnknown) => {
    if (!file) return;
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      const answer = await api.importOwnCosts(file, { allowUnknown: allow });
      setResult({ file, result: answer });
      if (answer.applied) await refresh();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
      if (inputRef.current) inputRef.current.value = '';
    }
  };

  const r = result?.result;
  return (
    <section className="panel" aria-labelledby="own-costs-import-title">
      <h2 id="own-costs-import-title">Импорт из файла</h2>
      <p className="muted small">
        Файл .xlsx или .csv с колонками «Артикул» (пусто — для всех артикулов), «Статья», «Сумма за шт» и, если нужно,
        «Действует с» (ДД.ММ.ГГГГ). Файл применяется целиком или не применяется совсем: если в строке ошибка или
        артикула нет в каталоге, ничего не записывается, а строки для исправления перечисляются.
      </p>
      <FileImportControls
        busy={busy}
        option={{
          label: 'Применять строки артикулов, которых ещё нет в каталоге',
          checked: allowUnknown,
          onChange: setAllowUnknown,
          testId: 'own-costs-allow-unknown',
        }}
        input={{ label: 'Файл своих расходов', testId: 'own-costs-import-input', ref: inputRef }}
        onFile={(file) => void onFile(file)}
        error={error}
        errorTestId="own-costs-import-error"
      />
      {result && r ? (
        <div className="import-result" data-testid="own-costs-import-result">
          <div className={`alert ${r.applied ? 'alert-success' : 'alert-warning'}`} role="status">
            {r.applied
              ? `${result.file.name}: применён — добавлено строк ${formatInt(r.created)}, изменено ${formatInt(r.updated)}.`
              : `${result.file.name}: не применён, ничего не изменено${
                  r.errors.length ? `; строк с ошибками ${formatInt(r.errors.length)}` : ''
                }${r.unknown.count ? `; артикулов нет в каталоге: ${formatInt(r.unknown.count)}` : ''}.`}
          </div>
          {r.unknown.count && !r.applied ? (
            <div className="alert alert-warning" data-testid="own-costs-import-unknown">
              <p>Этих артикулов нет в каталоге (проверьте написание: каталог пополняют загруженные отчёты):</p>
              <ul className="unknown-articles">
                {r.unknown.articles.map((a) => (
                  <li key={a}>{a}</li>
                ))}
              </ul>
              {r.errors.length === 0 ? (
                <button
                  type="button"
                  className="btn btn-small"
                  data-testid="own-costs-import-allow"
                  disabled={busy}
                  onClick={() => void onFile(result.file, true)}
                >
                  Применить файл с этими артикулами
                </button>
              ) : null}
            </div>
          ) : null}
          {r.errors.length ? (
            <table className="data-table compact" data-testid="own-costs-import-errors">
              <thead>
                <tr>
                  <th className="num">Строка</th>
                  <th>Ошибка</th>
                </tr>
              </thead>
              <tbody>
                {r.errors.slice(0, 200).map((e, i) => (
                  <tr key={`${e.row}-${i}`}>
                    <td className="num">{e.row}</td>
                    <td>{e.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
