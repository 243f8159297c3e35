import { describe, expect, it } from 'vitest';
import { decodeEntities, decodeOoxmlEscapes } from './xml-text';

describe('decodeEntities', () => {
  it('decodes the five named entities and numeric references', () => {
    expect(decodeEntities('A &amp; B &lt;c&gt; &quot;d&quot; &apos;e&apos;')).toBe(`A & B <c> "d" 'e'`);
    expect(decodeEntities('&#1041;&#x440;&#X435;&#x1F600;')).toBe('Бре😀');
  });
  it('leaves unknown or broken references as written', () => {
    expect(decodeEntities('&nbsp; &#xZZ; & alone &#55296;')).toBe('&nbsp; &#xZZ; & alone &#55296;');
  });
});

describe('decodeOoxmlEscapes', () => {
  it('turns _xHHHH_ into the character', () => {
    expect(decodeOoxmlEscapes('line_x000D_\nnext')).toBe('line\r\nnext');
    expect(decodeOoxmlEscapes('no escapes')).toBe('no escapes');
  });
});
