import {
  DEFAULT_USN_RATES,
  USN_RATE_MAX,
  USN_RATE_MIN,
  VAT_RATES,
  type TaxProfile,
  type TaxSystem,
} from '../api/contract';

const TAX_SYSTEM_TITLES: Record<TaxSystem, string> = {
  usn_income: 'УСН «Доходы»',
  usn_income_expenses: 'УСН «Доходы минус расходы»',
  none: 'Без налога на доход',
};

const DEFAULT_RATES: Readonly<Record<TaxSystem, number>> = DEFAULT_USN_RATES;
type VatRate = TaxProfile['vat_rate'];

/** The first day each VAT rate exists (5 and 7 from 2025, 22 from 2026) and the day 20 % ended. */
export function vatRateErrorOn(rate: number, date: string | null): string | null {
  if (date === null) return null;
  if ((rate === 5 || rate === 7) && date < '2025-01-01') return `НДС ${rate} % действует только с 01.01.2025.`;
  if (rate === 22 && date < '2026-01-01') return 'НДС 22 % действует только с 01.01.2026.';
  if (rate === 20 && date >= '2026-01-01') return 'НДС 20 % действовал только до 01.01.2026.';
  return null;
}

export function describeTax(tax: TaxProfile | null | undefined): string {
  if (!tax) return 'профиль по умолчанию';
  const usn =
    tax.tax_system === 'none' ? TAX_SYSTEM_TITLES.none : `${TAX_SYSTEM_TITLES[tax.tax_system]}, ${tax.usn_rate} %`;
  return `${usn}; НДС ${tax.vat_rate === 0 ? 'не платится' : `${tax.vat_rate} %`}`;
}

export function taxProfileError(tax: TaxProfile): string | null {
  if (tax.tax_system !== 'none' && !(tax.usn_rate >= USN_RATE_MIN && tax.usn_rate <= USN_RATE_MAX))
    return `Ставка УСН должна быть от ${USN_RATE_MIN} до ${USN_RATE_MAX} %.`;
  if (!(VAT_RATES as readonly number[]).includes(tax.vat_rate))
    return `Ставка НДС: ${VAT_RATES.slice(0, -1).join(', ')} или ${VAT_RATES[VAT_RATES.length - 1]} %.`;
  return null;
}

interface Props {
  value: TaxProfile;
  onChange: (next: TaxProfile) => void;
  idPrefix: string;
  disabled?: boolean;
}

/** Tax profile of docs/METRICS.md: tax system, USN rate (0–15 %), VAT rate (0/5/7/10/22 %). */
export function TaxProfileForm({ value, onChange, idPrefix, disabled }: Props) {
  return (
    <div className="tax-form">
      <label htmlFor={`${idPrefix}-system`}>
        Система налогообложения
        <select
          id={`${idPrefix}-system`}
          value={value.tax_system}
          disabled={disabled}
          onChange={(e) => {
            const system = e.target.value as TaxSystem;
            onChange({ ...value, tax_system: system, usn_rate: DEFAULT_RATES[system] });
          }}
        >
          {(Object.keys(TAX_SYSTEM_TITLES) as TaxSystem[]).map((s) => (
            <option key={s} value={s}>
              {TAX_SYSTEM_TITLES[s]}
            </option>
          ))}
        </select>
      </label>
      <label htmlFor={`${idPrefix}-usn`}>
        Ставка УСН, %
        <input
          id={`${idPrefix}-usn`}
          type="number"
          min={USN_RATE_MIN}
          max={USN_RATE_MAX}
          step={0.1}
          value={value.tax_system === 'none' ? 0 : value.usn_rate}
          disabled={disabled || value.tax_system === 'none'}
          onChange={(e) => onChange({ ...value, usn_rate: e.target.value === '' ? 0 : Number(e.target.value) })}
        />
      </label>
      <label htmlFor={`${idPrefix}-vat`}>
        НДС
        <select
          id={`${idPrefix}-vat`}
          value={value.vat_rate}
          disabled={disabled}
          onChange={(e) => onChange({ ...value, vat_rate: Number(e.target.value) as VatRate })}
        >
          {VAT_RATES.map((r) => (
            <option key={r} value={r}>
              {r === 0 ? 'Не плательщик НДС' : `${r} %`}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
