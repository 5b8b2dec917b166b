import { cutText, storableText, textLength } from './text';

/** Where a sign-up came from: the campaign's UTM parameters, the page before the sign-up page, and the sign-up page. */
export const UTM_FIELDS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] as const;
export const ATTRIBUTION_FIELDS = [...UTM_FIELDS, 'referrer', 'landing_page'] as const;
export type AttributionField = (typeof ATTRIBUTION_FIELDS)[number];
export type Attribution = Partial<Record<AttributionField, string>>;

export const ATTRIBUTION_LIMITS = { utm: 200, url: 2000 } as const;

/**
 * The attribution fields of `raw` (an object of any shape), each bounded, everything else dropped;
 * null when nothing is left. Attribution is bookkeeping: what cannot be kept is left out rather than
 * refused, so that a campaign's odd link never costs a sign-up. Control characters, and what PostgreSQL
 * cannot store (text.ts), are dropped; a UTM value is cut to its limit in code points; a page that is no
 * http(s) URL within its limit is left out, as a cut URL would point nowhere.
 */
export function cleanAttribution(raw: unknown): Attribution | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const given = raw as Record<string, unknown>;
  const kept: Attribution = {};
  for (const field of ATTRIBUTION_FIELDS) {
    const value = given[field];
    if (typeof value !== 'string') continue;
    const text = storableText(value).replace(/\p{Cc}/gu, '').trim();
    if (field === 'referrer' || field === 'landing_page') {
      if (textLength(text) <= ATTRIBUTION_LIMITS.url && /^https?:\/\//i.test(text) && URL.canParse(text)) kept[field] = text;
    } else if (text) {
      kept[field] = cutText(text, ATTRIBUTION_LIMITS.utm);
    }
  }
  return Object.keys(kept).length ? kept : null;
}

/** The UTM parameters in a page's query string, and the page as the landing page (the API's sign-up, read from its Referer). */
export function attributionOfPage(page: string | undefined, referrer?: string): Attribution | null {
  if (!page || !URL.canParse(page)) return cleanAttribution({ referrer });
  const query = new URL(page).searchParams;
  const utm = Object.fromEntries(UTM_FIELDS.flatMap((field) => (query.has(field) ? [[field, query.get(field)]] : [])));
  return cleanAttribution({ ...utm, landing_page: page, referrer });
}
