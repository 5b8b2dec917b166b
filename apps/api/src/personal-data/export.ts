import { EntryRecord, Product, toEntry } from '@app/shared';
import type { EntityManager } from 'typeorm';
import { maskedEmail } from '../leaderboard/masked-email';

/**
 * One part of a person's export: its name in the JSON, and how it is read for one entry. Each reads
 * that entry's rows alone; another entry appears only as a masked address (a referral made). A new
 * table about an entry adds one section here (docs/privacy.md lists them).
 */
export interface ExportSection {
  name: string;
  read: (manager: EntityManager, entry: EntryRecord, product: Product) => Promise<unknown>;
}

const iso = (value: Date | null) => value && value.toISOString();

export const EXPORT_SECTIONS: ExportSection[] = [
  { name: 'product', read: async (_, __, product) => ({ name: product.name }) },
  { name: 'entry', read: async (_, entry) => toEntry(entry) },
  { name: 'language', read: async (_, entry) => entry.locale },
  {
    // What the sign-up said beside the address: the answers to the product's questions and where it came from.
    name: 'signUp',
    read: async (manager, entry) => {
      const [row]: { answers: object | null; attribution: object | null }[] = await manager.query(`SELECT answers, attribution FROM entry_details WHERE entry_id = $1`, [entry.id]);
      return { answers: row?.answers ?? {}, attribution: row?.attribution ?? {} };
    },
  },
  {
    name: 'placeHistory',
    read: async (manager, entry) => {
      const rows: { at: Date; cause: string; places: number; place: number | null; reasons: string[] }[] = await manager.query(
        `SELECT at, cause, places, place, reasons FROM place_history WHERE entry_id = $1 ORDER BY id`,
        [entry.id],
      );
      return rows.map((row) => ({ ...row, at: row.at.toISOString() }));
    },
  },
  {
    // What the service records of its mails: a confirmation link per confirmation mail, a code per
    // invitation (never the code itself). The my-data mails leave no record.
    name: 'mails',
    read: async (manager, entry) => {
      const rows: { kind: string; sent_at: Date; expires_at: Date | null; claim_ends_at: Date | null }[] = await manager.query(
        `SELECT 'confirmation' AS kind, created_at AS sent_at, NULL::timestamptz AS expires_at, NULL::timestamptz AS claim_ends_at
           FROM entry_tokens WHERE entry_id = $1 AND purpose = 'confirm'
         UNION ALL
         SELECT 'invitation', created_at, expires_at, claim_ends_at FROM invite_codes WHERE entry_id = $1 AND recorded
         ORDER BY sent_at`,
        [entry.id],
      );
      return rows.map((row) => ({ kind: row.kind, sentAt: row.sent_at.toISOString(), codeExpiresAt: iso(row.expires_at), claimEndsAt: iso(row.claim_ends_at) }));
    },
  },
  // What the mail provider reported of the address: since when it takes no mail, and its soft bounces (docs/api.md, "Undeliverable addresses").
  { name: 'mailDelivery', read: async (_, entry) => ({ undeliverableSince: iso(entry.undeliverableAt), softBounces: entry.softBounces }) },
  {
    name: 'referralsMade',
    read: async (manager, entry) => {
      const rows: { email: string; state: string; created_at: Date; confirmed_at: Date | null }[] = await manager.query(
        `SELECT e.email, r.state, r.created_at, r.confirmed_at FROM referrals r JOIN entries e ON e.id = r.referred_id
         WHERE r.referrer_id = $1 ORDER BY r.created_at, r.id`,
        [entry.id],
      );
      return rows.map((row) => ({ email: maskedEmail(row.email), state: row.state, signedUpAt: row.created_at.toISOString(), confirmedAt: iso(row.confirmed_at) }));
    },
  },
  {
    name: 'referralCredit',
    read: async (manager, entry, product) => {
      const [own]: { state: string; reasons: string[] }[] = await manager.query(`SELECT state, reasons FROM referrals WHERE referred_id = $1`, [entry.id]);
      const [{ checked }]: { checked: number }[] = await manager.query(
        `SELECT count(*)::int AS checked FROM referrals WHERE referrer_id = $1 AND state = 'pending' AND confirmed_at IS NOT NULL`,
        [entry.id],
      );
      const milestones: { name: string; referrals: number; places: number; message: string | null; reached_at: Date }[] = await manager.query(
        `SELECT name, referrals, places, message, reached_at FROM entry_milestones WHERE entry_id = $1 ORDER BY referrals`,
        [entry.id],
      );
      return {
        credited: entry.referrals,
        placesGained: entry.referrals * product.referralPlaces,
        beingChecked: checked,
        referredThroughALink: own !== undefined,
        ...(own ? { state: own.state, reasons: own.reasons } : {}),
        milestones: milestones.map(({ reached_at, ...milestone }) => ({ ...milestone, reachedAt: reached_at.toISOString() })),
      };
    },
  },
  {
    // The privacy trail's lines of the entry (privacy-trail.ts): what the person asked for and when.
    name: 'privacyRequests',
    read: async (manager, entry) => {
      const rows: { kind: string; at: Date }[] = await manager.query(`SELECT kind, at FROM privacy_requests WHERE entry_id = $1 ORDER BY id`, [entry.id]);
      return rows.map((row) => ({ kind: row.kind, at: row.at.toISOString() }));
    },
  },
];

/** Everything kept about one entry, section by section, read in one snapshot. */
export async function personalData(manager: EntityManager, entry: EntryRecord, product: Product, now: Date): Promise<Record<string, unknown>> {
  const data: Record<string, unknown> = { exportedAt: now.toISOString() };
  for (const section of EXPORT_SECTIONS) data[section.name] = await section.read(manager, entry, product);
  return data;
}
