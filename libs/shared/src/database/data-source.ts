import { DataSource } from 'typeorm';
import type { DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { Initial1763805600000 } from './migrations/1763805600000-initial';
import { Invitations1763812800000 } from './migrations/1763812800000-invitations';
import { Webhooks1763820000000 } from './migrations/1763820000000-webhooks';
import { Dashboard1763827200000 } from './migrations/1763827200000-dashboard';
import { OverviewAndSettings1763834400000 } from './migrations/1763834400000-overview-and-settings';
import { DurableJobs1763841600000 } from './migrations/1763841600000-durable-jobs';
import { Operators1763848800000 } from './migrations/1763848800000-operators';
import { ReferralCreditsAndLineOrder1763856000000 } from './migrations/1763856000000-referral-credits-and-line-order';
import { IntegrationKit1763863200000 } from './migrations/1763863200000-integration-kit';
import { EntryCounts1763870400000 } from './migrations/1763870400000-entry-counts';
import { FanOutFromOutbox1763877600000 } from './migrations/1763877600000-fan-out-from-outbox';
import { CounterStripes1763884800000 } from './migrations/1763884800000-counter-stripes';
import { ConfirmationsFromOutbox1763892000000 } from './migrations/1763892000000-confirmations-from-outbox';
import { ReferralStatesAndPlaceHistory1763899200000 } from './migrations/1763899200000-referral-states-and-place-history';
import { Leaderboard1763906400000 } from './migrations/1763906400000-leaderboard';
import { Milestones1763913600000 } from './migrations/1763913600000-milestones';
import { Imports1764000000000 } from './migrations/1764000000000-imports';
import { ClaimWindow1764003600000 } from './migrations/1764003600000-claim-window';
import { Releases1764007200000 } from './migrations/1764007200000-releases';
import { Languages1764014400000 } from './migrations/1764014400000-languages';
import { MailTemplates1764018000000 } from './migrations/1764018000000-mail-templates';
import { QuestionsAndAttribution1764021600000 } from './migrations/1764021600000-questions-and-attribution';
import { DeliveriesWrittenOnce1764108000000 } from './migrations/1764108000000-deliveries-written-once';
import { BucketsWhenMoved1764201600000 } from './migrations/1764201600000-buckets-when-moved';
import { ReleaseRunRequests1764374400000 } from './migrations/1764374400000-release-run-requests';
import { SignupChallenge1764460800000 } from './migrations/1764460800000-signup-challenge';
import { SignupSignals1764464400000 } from './migrations/1764464400000-signup-signals';
import { MailFeedback1764471600000 } from './migrations/1764471600000-mail-feedback';
import { MailQuotas1764475200000 } from './migrations/1764475200000-mail-quotas';
import { ReleaseRunEntries1764486000000 } from './migrations/1764486000000-release-run-entries';
import { PrivacyRequests1764489600000 } from './migrations/1764489600000-privacy-requests';
import { ImportUploads1795811935261 } from './migrations/1795811935261-import-uploads';
import { LineAfterNumber1795900000000 } from './migrations/1795900000000-line-after-number';
import { HandedOverMarks1795903600000 } from './migrations/1795903600000-handed-over-marks';
import { SignupsCountThemselves1795907200000 } from './migrations/1795907200000-signups-count-themselves';
import { HeldByReason1795910800000 } from './migrations/1795910800000-held-by-reason';
import { OutboxPersonalData1795914400000 } from './migrations/1795914400000-outbox-personal-data';

export const MIGRATIONS = [Initial1763805600000, Invitations1763812800000, Webhooks1763820000000, Dashboard1763827200000, OverviewAndSettings1763834400000, DurableJobs1763841600000, Operators1763848800000, ReferralCreditsAndLineOrder1763856000000, IntegrationKit1763863200000, EntryCounts1763870400000, FanOutFromOutbox1763877600000, CounterStripes1763884800000, ConfirmationsFromOutbox1763892000000, ReferralStatesAndPlaceHistory1763899200000, Leaderboard1763906400000, Milestones1763913600000, Imports1764000000000, ClaimWindow1764003600000, Releases1764007200000, Languages1764014400000, MailTemplates1764018000000, QuestionsAndAttribution1764021600000, DeliveriesWrittenOnce1764108000000, BucketsWhenMoved1764201600000, ReleaseRunRequests1764374400000, SignupChallenge1764460800000, SignupSignals1764464400000, MailFeedback1764471600000, MailQuotas1764475200000, ReleaseRunEntries1764486000000, PrivacyRequests1764489600000, ImportUploads1795811935261, LineAfterNumber1795900000000, HandedOverMarks1795903600000, SignupsCountThemselves1795907200000, HeldByReason1795910800000, OutboxPersonalData1795914400000];

/** The one DataSource definition, used by the apps, the CLI's migrate command and the tests. */
export function dataSourceOptions(url: string): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTransactionMode: 'each',
  };
}

export function createDataSource(url: string): DataSource {
  return new DataSource(dataSourceOptions(url));
}
