import { getDataSourceToken } from '@nestjs/typeorm';
import { SecretBox, WEBHOOK_SECRETS } from '@app/shared';
import type { DataSource } from 'typeorm';
import { LOGIN_HOOK_SECRETS } from '../login-hooks/login-hooks.service';
import { CliCommand } from './command';
import { withServices } from './services';

/** The columns that hold sealed secrets, and what each was sealed for. */
const SEALED = [
  { table: 'webhook_endpoints', column: 'secret', purpose: WEBHOOK_SECRETS },
  { table: 'webhook_endpoints', column: 'previous_secret', purpose: WEBHOOK_SECRETS },
  { table: 'login_hooks', column: 'secret', purpose: LOGIN_HOOK_SECRETS },
];

/**
 * The last step of rotating ENCRYPTION_KEY: with the new key first in the ring and the old ones after
 * it, every stored secret that an old key sealed is sealed again with the new one, after which the
 * old keys can leave the ring. A row changed meanwhile (a secret rotated) is left as it was: its new
 * secret is sealed with the new key already. Safe to run again. (Dashboard notices, shown once and
 * short-lived, are not sealed again: one an old key sealed is dropped once that key is gone.)
 */
export const secretsReencrypt: CliCommand<object> = {
  name: 'secrets reencrypt',
  description: 'seals every stored secret again with the first key of ENCRYPTION_KEY (the last step of a key rotation)',
  options: [],
  run: (_, config) =>
    withServices(config, async (app) => {
      const db = app.get<DataSource>(getDataSourceToken());
      let resealed = 0;
      let current = 0;
      const unopened: string[] = [];
      for (const { table, column, purpose } of SEALED) {
        const box = new SecretBox(config.ENCRYPTION_KEY, purpose);
        const rows: { id: string; sealed: Buffer }[] = await db.query(`SELECT id, ${column} AS sealed FROM ${table} WHERE ${column} IS NOT NULL`);
        for (const { id, sealed } of rows) {
          if (box.sealedWithFirst(sealed)) {
            current++;
            continue;
          }
          let secret: string;
          try {
            secret = box.open(sealed);
          } catch {
            unopened.push(`${table}.${column} of ${id}`);
            continue;
          }
          const [, changed]: [unknown, number] = await db.query(`UPDATE ${table} SET ${column} = $2 WHERE id = $1 AND ${column} = $3`, [id, box.seal(secret), sealed]);
          resealed += changed;
        }
      }
      if (unopened.length) {
        throw new Error(`No key of ENCRYPTION_KEY opens ${unopened.length} secret(s) (${unopened.join(', ')}): put the key that sealed them back in the ring.`);
      }
      return { json: { resealed, current }, text: `Sealed ${resealed} secret(s) again with the first key; ${current} already were.` };
    }),
};
