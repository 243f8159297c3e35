import { METRIC_KEYS, type MetricKey, type RowSink } from '../../../shared/engine/row-sink';

/** A sink that keeps every row as {key: text} (tests only: the real accumulators keep nothing per row). */
export function collectSink(): RowSink & {
  present: MetricKey[] | null;
  rows: Array<Partial<Record<MetricKey, string>>>;
} {
  const sink = {
    present: null as MetricKey[] | null,
    rows: [] as Array<Partial<Record<MetricKey, string>>>,
    begin(present: ReadonlySet<MetricKey>) {
      if (sink.present !== null) throw new Error('begin called twice');
      sink.present = [...present].sort();
    },
    row(cells: ReadonlyArray<string | undefined>) {
      if (sink.present === null) throw new Error('row before begin');
      const out: Partial<Record<MetricKey, string>> = {};
      cells.forEach((v, i) => {
        if (v !== undefined) out[METRIC_KEYS[i]!] = v;
      });
      sink.rows.push(out);
    },
  };
  return sink;
}
