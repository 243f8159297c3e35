import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { useSearchParams } from 'react-router-dom';
import { api } from '../api/client';
import type { ImportResult, Product } from '../api/contract';
import { ErrorMessage } from '../components/error-message';
import { FileImportControls } from '../components/file-import-controls';
import { LoadMore } from '../components/load-more';
import { Spinner } from '../components/progress-bar';
import { displayArticle } from '../lib/fields';
import { editText, formatDateTime, formatInt, formatMoney, parseNumberInput } from '../lib/format';
import { useTitle } from '../lib/use-title';

export function ProductsPage() {
  useTitle('Себестоимость');
  const [search, setSearch] = useState('');
  const [debounced, setDebounced] = useState('');
  // ?missing=1 (the report page's «Заполнить себестоимость» link): only products without a cost price.
  const [params, setParams] = useSearchParams();
  const missing = params.get('missing') === '1';
  const setMissing = (on: boolean) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        if (on) next.set('missing', '1');
        else next.delete('missing');
        return next;
      },
      { replace: true },
    );
  useEffect(() => {
    const t = window.setTimeout(() => setDebounced(search.trim()), 300);
    return () => window.clearTimeout(t);
  }, [search]);

  const products = useInfiniteQuery({
    queryKey: ['products', debounced, missing],
    queryFn: ({ pageParam }) => api.listProducts(debounced, pageParam, missing),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor ?? null,
  });
  const items = useMemo(() => products.data?.pages.flatMap((p) => p.items) ?? [], [products.data]);

  return (
    <div className="page">
      <div className="page-head">
        <h1>Себестоимость</h1>
        <p className="muted">
          Себестоимость единицы товара по артикулу продавца. Она попадает в отчёт при его построении; после изменений
          пересоберите отчёты.
        </p>
      </div>

      <ImportPanel />

      <section className="panel" aria-labelledby="catalog-title">
        <div className="panel-head">
          <h2 id="catalog-title">Каталог</h2>
          <input
            type="search"
            className="search-input"
            placeholder="Поиск по артикулу"
            aria-label="Поиск по артикулу"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
          />
          <label className={`chip${missing ? ' chip-on' : ''}`} data-testid="missing-filter">
            <input type="checkbox" checked={missing} onChange={(e) => setMissing(e.target.checked)} />
            Без себестоимости
          </label>
        </div>
        {products.isPending ? (
          <Spinner label="Загружаем каталог…" />
        ) : products.isError ? (
          <ErrorMessage error={products.error} />
        ) : items.length === 0 ? (
          <div className="empty-state" data-testid="products-empty">
            {missing && !debounced
              ? 'У всех артикулов указана себестоимость.'
              : debounced || missing
                ? 'Ничего не найдено.'
                : 'Каталог пуст. Артикулы появятся после загрузки первого отчёта, или импортируйте прайс-лист.'}
          </div>
        ) : (
          <div className="table-wrap">
            <table className="data-table" data-testid="products-table">
              <thead>
                <tr>
                  <th>Артикул</th>
                  <th className="num">Себестоимость за шт, ₽</th>
                  <th>Изменено</th>
                </tr>
              </thead>
              <tbody>
                {items.map((p) => (
                  <ProductRow key={p.article} product={p} />
                ))}
              </tbody>
            </table>
            <LoadMore query={products} />
          </div>
        )}
      </section>
    </div>
  );
}

function ProductRow({ product }: { product: Product }) {
  const queryClient = useQueryClient();
  const [text, setText] = useState(editText('money', product.cost_price));
  const [state, setState] = useState<'idle' | 'saving' | 'saved' | 'invalid'>('idle');
  const [invalid, setInvalid] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [current, setCurrent] = useState(product);
  const lastSaved = useRef(product.cost_price);

  useEffect(() => {
    setCurrent(product);
    lastSaved.current = product.cost_price;
    setText(editText('money', product.cost_price));
  }, [product]);

  const editable = product.article !== '';

  const save = async () => {
    const value = parseNumberInput(text);
    if (value === null || value < 0) {
      setInvalid('Введите число ≥ 0');
      setState('invalid');
      return;
    }
    // Fractions of a kopeck are refused, as the server refuses them (422 value_out_of_range).
    if (Math.abs(value * 100 - Math.round(value * 100)) > 1e-6) {
      setInvalid('Не больше 2 знаков после запятой');
      setState('invalid');
      return;
    }
    const roubles = Math.round(value * 100) / 100;
    // A product never priced is saved even at 0: the seller says its cost is 0.
    if (roubles === lastSaved.current && current.cost_price_set !== false) {
      setText(editText('money', roubles));
      setState('idle');
      return;
    }
    setState('saving');
    setError(null);
    try {
      const saved = await api.putProduct(product.article, roubles);
      lastSaved.current = saved.cost_price;
      setCurrent({ ...current, ...saved });
      setText(editText('money', lastSaved.current));
      setState('saved');
      // Reports built before this change become stale; their pages say so.
      void queryClient.invalidateQueries({ queryKey: ['report'] });
    } catch (e) {
      setError(e);
      setState('idle');
    }
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      void save();
    } else if (e.key === 'Escape') {
      setText(editText('money', lastSaved.current));
      setState('idle');
    }
  };

  const notSet = current.cost_price_set === false;
  return (
    <tr data-testid={`product-row-${product.article}`} className={notSet ? 'product-missing' : undefined}>
      <td>
        {displayArticle(product.article)}
        {notSet ? (
          <span className="badge badge-warning" data-testid={`cost-missing-${product.article}`}>
            не указана
          </span>
        ) : null}
      </td>
      <td className="num">
        {editable ? (
          <div className="price-cell">
            <input
              className={`price-input${state === 'invalid' ? ' invalid' : ''}`}
              aria-label={`Себестоимость за шт, ₽: ${product.article}`}
              aria-invalid={state === 'invalid' || undefined}
              data-testid={`cost-${product.article}`}
              inputMode="decimal"
              value={text}
              disabled={state === 'saving'}
              onChange={(e) => {
                setText(e.target.value);
                if (state !== 'saving') setState('idle');
              }}
              onKeyDown={onKeyDown}
              onBlur={() => void save()}
            />
            {state === 'invalid' ? (
              <span className="save-state save-state-error" role="alert" data-testid={`cost-error-${product.article}`}>
                {invalid}
              </span>
            ) : (
              <span className="save-state" aria-live="polite">
                {state === 'saving' ? 'Сохраняем…' : state === 'saved' ? '✓ Сохранено' : ''}
              </span>
            )}
          </div>
        ) : (
          formatMoney(product.cost_price)
        )}
        {error ? <ErrorMessage error={error} /> : null}
      </td>
      <td className="muted nowrap">{formatDateTime(current.updated_at)}</td>
    </tr>
  );
}

function ImportPanel() {
  const queryClient = useQueryClient();
  const inputRef = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [createMissing, setCreateMissing] = useState(false);
  const [result, setResult] = useState<{ file: File; result: ImportResult; createMissing: boolean } | null>(null);

  const onFile = async (file: File | undefined, addMissing = createMissing) => {
    if (!file) return;
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      const answer = await api.importProducts(file, { createMissing: addMissing });
      setResult({ file, result: answer, createMissing: addMissing });
      await queryClient.invalidateQueries({ queryKey: ['products'] });
      void queryClient.invalidateQueries({ queryKey: ['report'] });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
      if (inputRef.current) inputRef.current.value = '';
    }
  };

  return (
    <section className="panel" aria-labelledby="import-title">
      <h2 id="import-title">Импорт прайс-листа</h2>
      <p className="muted small">
        Файл .xlsx или .csv с колонками «Артикул» (или «Артикул поставщика») и «Себестоимость» (рубли, не больше 2
        знаков после запятой). Правильные строки применяются, даже если в других есть ошибки. Артикулы, которых нет в
        каталоге (их добавляют отчёты), не добавляются, а перечисляются — если не отметить «Добавить новые артикулы».
      </p>
      <FileImportControls
        busy={busy}
        option={{
          label: 'Добавить новые артикулы из файла в каталог',
          checked: createMissing,
          onChange: setCreateMissing,
          testId: 'import-create-missing',
        }}
        input={{ label: 'Файл прайс-листа', testId: 'import-input', ref: inputRef }}
        onFile={(file) => void onFile(file)}
        error={error}
        errorTestId="import-error"
      />
      {result ? (
        <div className="import-result" data-testid="import-result">
          <div className={`alert ${result.result.errors.length ? 'alert-warning' : 'alert-success'}`} role="status">
            {result.file.name}: обновлено {formatInt(result.result.updated)}, добавлено{' '}
            {formatInt(result.result.created)}
            {result.result.unknown.count ? `, нет в каталоге ${formatInt(result.result.unknown.count)}` : ''}
            {result.result.errors.length ? `, с ошибками ${formatInt(result.result.errors.length)}` : ''}.
          </div>
          {result.result.unknown.count ? (
            <div className="alert alert-warning" data-testid="import-unknown">
              <p>
                Этих артикулов нет в каталоге, их цены не применены (проверьте написание: каталог пополняют загруженные
                отчёты):
              </p>
              <ul className="unknown-articles">
                {result.result.unknown.articles.map((a) => (
                  <li key={a}>{a}</li>
                ))}
              </ul>
              {result.result.unknown.count > result.result.unknown.articles.length ? (
                <p className="muted small">
                  Показаны первые {formatInt(result.result.unknown.articles.length)} из{' '}
                  {formatInt(result.result.unknown.count)}.
                </p>
              ) : null}
              <button
                type="button"
                className="btn btn-small"
                data-testid="import-add-missing"
                disabled={busy}
                onClick={() => void onFile(result.file, true)}
              >
                Добавить их в каталог с ценами из файла
              </button>
            </div>
          ) : null}
          {result.result.errors.length ? (
            <table className="data-table compact" data-testid="import-errors">
              <thead>
                <tr>
                  <th className="num">Строка</th>
                  <th>Ошибка</th>
                </tr>
              </thead>
              <tbody>
                {result.result.errors.slice(0, 200).map((e, i) => (
                  <tr key={`${e.row}-${i}`}>
                    <td className="num">{e.row}</td>
                    <td>{e.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
          {result.result.errors.length > 200 ? (
            <p className="muted small">Показаны первые 200 ошибок из {result.result.errors.length}.</p>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
