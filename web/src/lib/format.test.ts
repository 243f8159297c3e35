import { describe, expect, it } from 'vitest';
import { articlesCount, formatBySize, formatDateTime, formatPercent } from './format';

const plain = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

describe('formats', () => {
  it('writes every percent with two decimals', () => {
    expect(['4', '93.7', '3.35'].map((v) => plain(formatPercent(Number(v))))).toEqual(['4,00 %', '93,70 %', '3,35 %']);
  });

  it('shows times in the browser’s own time zone', () => {
    const iso = '2026-11-21T11:59:00Z';
    const d = new Date(iso);
    const local = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
    expect(formatDateTime(iso)).toContain(local);
  });
});

describe('articlesCount', () => {
  it('says how many articles, or how many of them a search found', () => {
    expect(articlesCount(1200, 1200).replace(/[\u00a0\u202f]/g, ' ')).toBe('Артикулов: 1 200');
    expect(articlesCount(3, 1200).replace(/[\u00a0\u202f]/g, ' ')).toBe('Найдено 3 из 1 200');
  });
});

describe('formatBySize', () => {
  it('summarised amounts: whole roubles below a million, «млн ₽» above', () => {
    expect(formatBySize(8_220).replace(/[\u00a0\u202f]/g, ' ')).toBe('8 220 ₽');
    expect(formatBySize(20_000_000)).toBe('20 млн ₽');
    expect(formatBySize(1_234_567.89)).toBe('1,2 млн ₽');
    expect(formatBySize(null)).toBe('—');
  });
});
