import { ApiError, errorText } from '../api/errors';

/** A human message for a failed action; the API's own text only as a detail about a file. */
export function ErrorMessage({ error, testId }: { error: unknown; testId?: string }) {
  if (!error) return null;
  const detail = error instanceof ApiError ? error.serverMessage : undefined;
  return (
    <div className="alert alert-error" role="alert" data-testid={testId}>
      <div>{errorText(error)}</div>
      {detail ? <div className="alert-detail">{detail}</div> : null}
    </div>
  );
}
