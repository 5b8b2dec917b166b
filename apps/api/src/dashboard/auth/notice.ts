import type { HeldFile } from '../../imports/held-uploads';
import type { ImportReport } from '../../imports/imports.dto';
import type { KeyPair } from '../../keys/keys.service';
import type { NewLoginHook } from '../../login-hooks/login-hooks.service';

/**
 * What a page shows once after the action that led to it: the action answers with a redirect and the
 * notice waits in the session (post/redirect/get), so that a reload repeats nothing and shows nothing.
 */
export interface Notice {
  /** A new key pair, its secret shown this once. */
  keyPair?: KeyPair;
  /** A new or rotated webhook signing secret, shown this once. */
  secret?: string;
  /** A new sign-up hook: its URL and secret, shown this once. */
  loginHook?: NewLoginHook;
  /** What the action changed, in a sentence: the frame shows it under the bar (shared/layout.ts), the one place for it. */
  done?: string;
  /** Lines under `done`: what the action left undone, and why. */
  notes?: string[];
  /** Why the action was refused, in words: shown in the same place, as an alert. */
  refused?: string;
  /** The held upload's columns and the form's options, with a dry run's report (its lists cut to DRY_RUN_SHOWN rows) once there is one. */
  dryRun?: { report?: ImportReport; fields?: ImportFields; columns?: FileColumns; held?: HeldFile };
}

// The import's shapes stand here, not with its page: the notice carries them over the redirect, and the
// session that keeps the notice must need nothing above it.

/** An uploaded file as its column picker shows it: the header row and the first rows, each cell cut for the page. */
export interface FileColumns {
  header: string[];
  rows: string[][];
}

/** The options as the form posts them, kept from the picker to the dry run and the import. */
export interface ImportFields {
  /** The field picked for each column ('' for none). */
  picks: string[];
  state: string;
  confirmationMails: boolean;
  events: boolean;
}
