/** The product's one name, as the web page, the mails and GET /api/config write it. */
export const PRODUCT_NAME = 'Прибыльность WB';
