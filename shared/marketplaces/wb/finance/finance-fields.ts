/**
 * The fields of WB's Finance API (category «Финансы», dev.wildberries.ru/docs/openapi/finances) as WB sends
 * them: the detailed row of `POST /api/finance/v1/sales-reports/detailed/{reportId}` and the report of
 * `POST /api/finance/v1/sales-reports/list`. One table per shape says each field's JSON type and, for the
 * row, which column of the portal's file (shared/engine/read/headers.ts keys) holds the same value.
 *
 * Types follow the spec as the public generated clients carry it (docs/WB-API.md, Sources): money as
 * decimal strings, percents and coefficients as numbers, ids and counts as integers.
 */

/** How a field travels: `money` is a decimal string of roubles ("1557.71"). */
export type WbFieldType = 'money' | 'int' | 'number' | 'string' | 'bool';

/**
 * Every field of the detailed row, in the spec's order: [type, portal column key or null when the portal's
 * file has no such column].
 */
export const DETAILED_ROW_FIELDS = {
  reportId: ['int', null],
  dateFrom: ['string', null],
  dateTo: ['string', null],
  createDate: ['string', null],
  currency: ['string', null],
  reportType: ['int', null],
  rrdId: ['int', 'rrd_no'],
  giId: ['int', 'gi_id'],
  dlvPrc: ['number', 'dlv_prc'],
  fixTariffDateFrom: ['string', 'fix_tariff_date_from'],
  fixTariffDateTo: ['string', 'fix_tariff_date_to'],
  subjectName: ['string', 'subject_name'],
  nmId: ['int', 'nm_id'],
  brandName: ['string', 'brand_name'],
  vendorCode: ['string', 'sa_name'],
  title: ['string', 'title'],
  techSize: ['string', 'ts_name'],
  sku: ['string', 'barcode'],
  docTypeName: ['string', 'doc_type_name'],
  quantity: ['int', 'quantity'],
  retailPrice: ['money', 'retail_price'],
  retailAmount: ['money', 'retail_amount'],
  salePercent: ['int', 'sale_percent'],
  commissionPercent: ['number', 'commission_percent'],
  officeName: ['string', 'office_name'],
  sellerOperName: ['string', 'supplier_oper_name'],
  orderDt: ['string', 'order_dt'],
  saleDt: ['string', 'sale_dt'],
  rrDate: ['string', null],
  shkId: ['int', 'shk_id'],
  retailPriceWithDisc: ['money', 'retail_price_withdisc_rub'],
  deliveryAmount: ['int', 'delivery_amount'],
  returnAmount: ['int', 'return_amount'],
  deliveryService: ['money', 'delivery_rub'],
  giBoxTypeName: ['string', 'gi_box_type_name'],
  productDiscountForReport: ['number', 'product_discount_for_report'],
  sellerPromo: ['string', 'supplier_promo'],
  spp: ['number', 'ppvz_spp_prc'],
  kvwBase: ['number', 'ppvz_kvw_prc_base'],
  kvw: ['number', 'ppvz_kvw_prc'],
  supRatingUp: ['number', 'sup_rating_prc_up'],
  isKgvpV2: ['number', 'is_kgvp_v2'],
  ppvzSalesCommission: ['money', 'ppvz_sales_commission'],
  forPay: ['money', 'ppvz_for_pay'],
  ppvzReward: ['money', 'ppvz_reward'],
  acquiringFee: ['money', 'acquiring_fee'],
  acquiringPercent: ['number', 'acquiring_percent'],
  paymentProcessing: ['string', 'payment_processing'],
  acquiringBank: ['string', 'acquiring_bank'],
  vw: ['money', 'ppvz_vw'],
  vwNds: ['money', 'ppvz_vw_nds'],
  ppvzOfficeName: ['string', 'ppvz_office_name'],
  ppvzOfficeId: ['int', 'ppvz_office_id'],
  ppvzSupplierName: ['string', 'ppvz_supplier_name'],
  ppvzSupplierInn: ['string', 'ppvz_inn'],
  declarationNumber: ['string', 'declaration_number'],
  bonusTypeName: ['string', 'bonus_type_name'],
  stickerId: ['string', 'sticker_id'],
  country: ['string', 'site_country'],
  srvDbs: ['bool', 'srv_dbs'],
  penalty: ['money', 'penalty'],
  additionalPayment: ['money', 'additional_payment'],
  rebillLogisticCost: ['money', 'rebill_logistic_cost'],
  rebillLogisticOrg: ['string', 'rebill_logistic_org'],
  paidStorage: ['money', 'storage_fee'],
  deduction: ['money', 'deduction'],
  paidAcceptance: ['money', 'acceptance'],
  // «Номер сборочного задания» of the file (assembly_id in the retired statistics API).
  orderId: ['int', 'assembly_id'],
  kiz: ['string', 'kiz'],
  isB2b: ['bool', 'is_legal_entity'],
  trbxId: ['string', 'trbx_id'],
  installmentCofinancingAmount: ['money', 'installment_cofinancing_amount'],
  wibesDiscountPercent: ['number', 'wibes_wb_discount_percent'],
  cashbackAmount: ['money', 'cashback_amount'],
  cashbackDiscount: ['money', 'cashback_discount'],
  cashbackCommissionChange: ['money', 'cashback_commission_change'],
  paymentSchedule: ['money', 'payment_schedule'],
  deliveryMethod: ['string', 'delivery_method'],
  sellerPromoId: ['int', 'seller_promo_id'],
  sellerPromoDiscount: ['number', 'seller_promo_discount'],
  loyaltyId: ['int', 'loyalty_id'],
  loyaltyDiscount: ['number', 'loyalty_discount'],
  uuidPromocode: ['string', 'uuid_promocode'],
  salePricePromocodeDiscountPrc: ['number', 'sale_price_promocode_discount_prc'],
  articleSubstitution: ['string', 'article_substitution'],
  salePriceAffiliatedDiscountPrc: ['number', 'sale_price_affiliated_discount_prc'],
  agencyVat: ['number', null],
  salePriceWholesaleDiscountPrc: ['number', 'sale_price_wholesale_discount_prc'],
  b2bCustomerTin: ['string', null],
  paidWithSocialCertificate: ['bool', null],
  warehouseLogisticsCoeff: ['number', null],
  orderUid: ['string', 'order_uid'],
  srid: ['string', 'srid'],
} as const satisfies Record<string, readonly [WbFieldType, string | null]>;

export type DetailedRowField = keyof typeof DETAILED_ROW_FIELDS;
export const DETAILED_ROW_FIELD_NAMES = Object.keys(DETAILED_ROW_FIELDS) as DetailedRowField[];

/** Every field of a report in the list, in the spec's order. Money sums are decimal strings. */
export const REPORT_LIST_FIELDS = {
  reportId: 'int',
  sellerFinanceName: 'string',
  dateFrom: 'string',
  dateTo: 'string',
  createDate: 'string',
  currency: 'string',
  reportType: 'int',
  retailAmountSum: 'money',
  forPaySum: 'money',
  avgSalePercent: 'number',
  deliveryServiceSum: 'money',
  paidStorageSum: 'money',
  paidAcceptanceSum: 'money',
  deductionSum: 'money',
  penaltySum: 'money',
  additionalPaymentSum: 'money',
  cashbackAmountSum: 'money',
  cashbackDiscountSum: 'money',
  cashbackCommissionChangeSum: 'money',
  paymentSchedule: 'money',
  bankPaymentSum: 'money',
} as const satisfies Record<string, WbFieldType>;

export type ReportListField = keyof typeof REPORT_LIST_FIELDS;
export type ReportListMoneyField = {
  [K in ReportListField]: (typeof REPORT_LIST_FIELDS)[K] extends 'money' ? K : never;
}[ReportListField];
