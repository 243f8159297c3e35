/** Decoding of XML character data as spreadsheets store it. Only called for text that needs it. */

const NAMED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function fromCodePoint(cp: number, original: string): string {
  return cp >= 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) ? String.fromCodePoint(cp) : original;
}

/** The five XML entities and numeric character references (&#NNN; &#xHH;); anything else stays as written. */
export function decodeEntities(text: string): string {
  if (text.indexOf('&') < 0) return text;
  return text.replace(/&(#[xX][0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (m, body: string) => {
    if (body[0] === '#') {
      const cp = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return fromCodePoint(cp, m);
    }
    return NAMED[body] ?? m;
  });
}

/**
 * OOXML's own escape for characters XML cannot carry (ECMA-376 ST_Xstring): "_x000D_" is a carriage
 * return, and a literal "_x" sequence is written "_x005F_x…".
 */
export function decodeOoxmlEscapes(text: string): string {
  if (text.indexOf('_x') < 0) return text;
  return text.replace(/_x([0-9a-fA-F]{4})_/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
