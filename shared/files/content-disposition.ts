/**
 * `attachment; filename="<ASCII fallback>"; filename*=UTF-8''<percent-encoded>` (RFC 6266 with the
 * RFC 5987 extended parameter): browsers use filename* and keep Cyrillic names; old clients get the
 * fallback, where anything outside printable ASCII (and quotes, backslashes, separators) becomes "_".
 */
export function contentDisposition(filename: string, disposition: 'attachment' | 'inline' = 'attachment'): string {
  const clean = filename.replace(/[\r\n]/g, ' ').replace(/[/\\]/g, '_');
  const fallback = clean.replace(/[^\x20-\x7e]|["%;\\]/g, '_');
  const encoded = encodeURIComponent(clean).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${disposition}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
