/**
 * A seller for people: «Name (number)», or the number alone when there is no name or the name is the
 * number itself (a seller made from a report file is named by its number until renamed).
 */
export function sellerLabel(seller: { name?: string | null; number: string }): string {
  const name = seller.name?.trim();
  return name && name !== seller.number ? `${name} (${seller.number})` : seller.number;
}
