/**
 * A 2026 weekly report of 51 rows as WB's Finance API sends them (`sales-reports/detailed`), rebuilt from
 * what a seller's real week showed (docs/WB-API.md, «Row money»): 23 rows «Возмещение издержек по
 * перевозке/по складским операциям с товаром» whose ppvz_vw + ppvz_vw_nds = −rebill and ppvz_for_pay = 0
 * (Σ rebill 81.64 ₽), sales and returns paid «Компенсация платёжных услуг» with ppvz_for_pay =
 * retail_amount − vw − vw_nds − acquiring − ppvz_reward to the kopeck, logistics, storage and an ad
 * deduction. The real week's rows are the seller's; these carry its shape and its identities, not its
 * articles.
 *
 * `billedSeparately` makes the sale rows' payment type «Комиссия за организацию платежа с НДС» with
 * acquiring NOT taken from for_pay, as public clients of the Finance API describe it.
 */
import type { WbDetailedRow } from '../../shared/marketplaces/wb/finance/schemas';

const rub = (k: number): string => (k / 100).toFixed(2);
const REBILL_OP = 'Возмещение издержек по перевозке/по складским операциям с товаром';
export const PAID_INSIDE = 'Компенсация платёжных услуг';
export const PAID_APART = 'Комиссия за организацию платежа с НДС';

const ARTICLES = [
  { vendorCode: 'PLATYE-01', nmId: 101_001, subjectName: 'Платья', brandName: 'Лето' },
  { vendorCode: 'YUBKA-02', nmId: 101_002, subjectName: 'Юбки', brandName: 'Лето' },
] as const;

export interface RealWeek {
  rows: WbDetailedRow[];
  /** Σ rebillLogisticCost, kopecks (the 81.64 ₽ of the week). */
  rebill: number;
}

export function realWeek2026(opts: { billedSeparately?: boolean } = {}): RealWeek {
  const rows: WbDetailedRow[] = [];
  let rrdId = 3_100_000_001;
  const base = (i: number) => ({
    reportId: 512_345_678,
    dateFrom: '2026-05-04',
    dateTo: '2026-05-10',
    createDate: '2026-05-11',
    currency: 'RUB',
    reportType: 1,
    rrdId: rrdId++,
    ...ARTICLES[i % 2]!,
    saleDt: `2026-05-0${4 + (i % 7)}T00:00:00Z`,
    orderDt: `2026-05-0${1 + (i % 7)}T00:00:00Z`,
  });

  // 20 sales and 2 returns: WB's identity on every row (returns carry the same positive amounts).
  for (let i = 0; i < 22; i++) {
    const ret = i >= 20;
    const price = 45_000 + 1_000 * (i % 5); // kopecks, the seller's price after the agreed discount
    const retail = price - 3_000 - 100 * (i % 3); // after WB's platform discount
    const V = Math.round((price * 19.5) / 100) - (price - retail); // ВВ with VAT
    const vw = Math.round((V * 100) / 122);
    const acq = Math.round((retail * 1.9) / 100);
    const reward = i % 4 === 0 ? 250 : 0;
    const forPay = retail - V - reward - (opts.billedSeparately ? 0 : acq);
    rows.push({
      ...base(i),
      docTypeName: ret ? 'Возврат' : 'Продажа',
      sellerOperName: ret ? 'Возврат' : 'Продажа',
      quantity: 1,
      retailPrice: rub(price + 5_000),
      retailPriceWithDisc: rub(price),
      retailAmount: rub(retail),
      commissionPercent: 19.5,
      vw: rub(vw),
      vwNds: rub(V - vw),
      acquiringFee: rub(acq),
      acquiringPercent: 1.9,
      paymentProcessing: opts.billedSeparately ? PAID_APART : PAID_INSIDE,
      ppvzReward: rub(reward),
      forPay: rub(forPay),
    });
  }

  // 23 rebill rows, Σ 81.64 ₽: WB nets each in its reward on the same row, nothing to pay.
  let rebill = 0;
  for (let i = 0; i < 23; i++) {
    const amount = i === 22 ? 354 : 355;
    rebill += amount;
    const vw = -Math.round((amount * 100) / 122);
    rows.push({
      ...base(i),
      docTypeName: '',
      sellerOperName: REBILL_OP,
      rebillLogisticCost: rub(amount),
      rebillLogisticOrg: 'ООО «РВБ»',
      vw: rub(vw),
      vwNds: rub(-amount - vw),
      forPay: '0.00',
    });
  }

  // 4 logistics legs, storage, an ad deduction.
  for (let i = 0; i < 4; i++) {
    rows.push({
      ...base(i),
      docTypeName: '',
      sellerOperName: 'Логистика',
      bonusTypeName: i === 3 ? 'От клиента при возврате' : 'К клиенту при продаже',
      deliveryAmount: i === 3 ? 0 : 1,
      returnAmount: i === 3 ? 1 : 0,
      deliveryService: rub(8_140 + 100 * i),
    });
  }
  rows.push({
    ...base(0),
    vendorCode: '',
    nmId: 0,
    subjectName: '',
    brandName: '',
    docTypeName: '',
    sellerOperName: 'Хранение',
    paidStorage: rub(12_345),
  });
  rows.push({
    ...base(0),
    vendorCode: '',
    nmId: 0,
    subjectName: '',
    brandName: '',
    docTypeName: '',
    sellerOperName: 'Удержание',
    bonusTypeName: 'Оказание услуг «ВБ.Продвижение»',
    deduction: rub(118_503),
  });
  return { rows, rebill };
}
