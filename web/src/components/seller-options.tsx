import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { sellerLabel } from '../lib/seller-label';

/**
 * The options of a seller <select>: `empty` (no seller / all sellers) first, then the user's sellers as
 * «Name (number)» or the number alone (sellerLabel). The list is fetched once and shared by every select (one query key).
 */
export function SellerOptions({ empty }: { empty: string }) {
  const sellers = useQuery({ queryKey: ['sellers'], queryFn: api.listSellers });
  return (
    <>
      <option value="">{empty}</option>
      {(sellers.data?.items ?? []).map((s) => (
        <option key={s.id} value={s.id}>
          {sellerLabel(s)}
        </option>
      ))}
    </>
  );
}
