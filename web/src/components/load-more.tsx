/** The "show more" button under a paged list; it shows only while the query has another page. */
export function LoadMore({
  query,
}: {
  query: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown };
}) {
  if (!query.hasNextPage) return null;
  return (
    <div className="load-more">
      <button type="button" className="btn" onClick={() => query.fetchNextPage()} disabled={query.isFetchingNextPage}>
        {query.isFetchingNextPage ? 'Загружаем…' : 'Показать ещё'}
      </button>
    </div>
  );
}
