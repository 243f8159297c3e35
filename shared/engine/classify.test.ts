import { describe, expect, it } from 'vitest';
import {
  classifyOperation,
  deductionKind,
  docDirection,
  isReverseLegKind,
  normalizeText,
  rowDirection,
} from './classify';

describe('normalizeText', () => {
  it('trims, collapses spaces, lower-cases and folds ё', () => {
    expect(normalizeText('  Корректная   продажа ')).toBe('корректная продажа');
    expect(normalizeText('Перевод на баланс заёмщика')).toBe('перевод на баланс заемщика');
    expect(normalizeText('Логистика\u00a0 сторно')).toBe('логистика сторно');
    expect(normalizeText(undefined)).toBe('');
  });
});

describe('classifyOperation', () => {
  it.each([
    ['Продажа', 1],
    ['Корректная продажа', 1],
    ['Сторно возвратов', 1],
    ['Коррекция продаж', 1],
    ['Возврат', -1],
    ['Корректный возврат', -1],
    ['Сторно продаж', -1],
    ['Коррекция возвратов', -1],
    ['  продажа ', 1],
  ])('%s is realization with default direction %d', (op, sign) => {
    expect(classifyOperation(op)).toEqual({ cls: 'realization', sign, known: true });
  });

  it.each([
    'Авансовая оплата за товар без движения',
    'Компенсация подмененного товара',
    'Частичная компенсация брака',
    'Компенсация брака',
    'Оплата брака',
    'Компенсация потерянного товара',
    'Оплата потерянного товара',
    'Компенсация ущерба',
    'Добровольная компенсация при возврате',
  ])('%s is compensation', (op) => {
    expect(classifyOperation(op)).toEqual({ cls: 'compensation', sign: 1, known: true });
  });

  it('the loyalty operations are not compensations', () => {
    for (const op of [
      'Компенсация скидки по программе лояльности',
      'Стоимость участия в программе лояльности',
      'Сумма удержанная за начисленные баллы программы лояльности',
    ]) {
      expect(classifyOperation(op)).toEqual({ cls: 'other', sign: 1, known: true });
    }
  });

  it('logistics keeps the file sign except "Логистика сторно" which is negated', () => {
    expect(classifyOperation('Логистика')).toEqual({ cls: 'logistics', sign: 1, known: true });
    expect(classifyOperation('Коррекция логистики')).toEqual({ cls: 'logistics', sign: 1, known: true });
    expect(classifyOperation('Логистика сторно')).toEqual({ cls: 'logistics', sign: -1, known: true });
  });

  it('pickup, acquiring correction, known others and unknown operations', () => {
    expect(classifyOperation('Возмещение за выдачу и возврат товаров на ПВЗ').cls).toBe('pickup');
    expect(classifyOperation('Корректировка эквайринга').cls).toBe('acquiring_correction');
    expect(classifyOperation('Хранение')).toEqual({ cls: 'other', sign: 1, known: true });
    expect(classifyOperation('Возмещение издержек по перевозке/по складским операциям с товаром').known).toBe(true);
    expect(classifyOperation('Операции на приемке').known).toBe(true);
    expect(classifyOperation('Штрафы и доплаты').known).toBe(true);
    expect(classifyOperation('Новая операция')).toEqual({ cls: 'other', sign: 1, known: false });
    expect(classifyOperation('')).toEqual({ cls: 'other', sign: 1, known: false });
  });
});

describe('direction', () => {
  it('document type wins over the operation default', () => {
    const storno = classifyOperation('Сторно продаж');
    expect(rowDirection(storno, 'Продажа')).toBe(1);
    expect(rowDirection(storno, 'Возврат')).toBe(-1);
    expect(rowDirection(storno, '')).toBe(-1);
    expect(rowDirection(storno, undefined)).toBe(-1);
    expect(rowDirection(classifyOperation('Сторно возвратов'), '')).toBe(1);
    expect(rowDirection(classifyOperation('Компенсация брака'), 'Возврат')).toBe(-1);
    expect(rowDirection(classifyOperation('Компенсация брака'), '')).toBe(1);
    expect(docDirection(' возврат ')).toBe(-1);
  });
});

describe('logistics legs and deduction kinds', () => {
  it('reverse legs start with "от клиента" or "возврат"', () => {
    expect(isReverseLegKind(normalizeText('От клиента при отмене'))).toBe(true);
    expect(isReverseLegKind(normalizeText('От клиента при возврате'))).toBe(true);
    expect(isReverseLegKind(normalizeText('Возврат брака (К продавцу)'))).toBe(true);
    expect(isReverseLegKind(normalizeText('Возврат неопознанного товара (К продавцу)'))).toBe(true);
    expect(isReverseLegKind(normalizeText('К клиенту при отмене'))).toBe(false);
    expect(isReverseLegKind(normalizeText('К клиенту при продаже'))).toBe(false);
    expect(isReverseLegKind('')).toBe(false);
  });
  it('splits Удержания into ads, loans and other deductions', () => {
    expect(deductionKind(normalizeText('Оказание услуг «ВБ.Продвижение»'))).toBe('ads');
    expect(deductionKind(normalizeText('Перевод на баланс заёмщика'))).toBe('loans');
    expect(deductionKind(normalizeText('Погашение займа'))).toBe('loans');
    expect(deductionKind(normalizeText('Удержание по договору заёма'))).toBe('loans');
    expect(deductionKind(normalizeText('Предоставление услуг по подписке «Джем»'))).toBe('deductions');
    expect(deductionKind('')).toBe('deductions');
  });
});
