import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Mode } from '../../domain/modes';

/** "Invite count every pattern in timeZone" for a product's mode; the BullMQ job schedulers are rebuilt from these rows. */
@Entity('releases')
export class Release {
  @PrimaryColumn('text') id!: string;
  @Column('text', { name: 'product_id' }) productId!: string;
  @Column('text') mode!: Mode;
  @Column('int') count!: number;
  @Column('text') pattern!: string;
  @Column('text', { name: 'time_zone' }) timeZone!: string;
  @Column('boolean', { default: false }) paused!: boolean;
  /** When the schedule was last set or resumed: a tick before it is not owed by a reconcile. */
  @Column('timestamp with time zone', { name: 'schedule_from', precision: 3 }) scheduleFrom!: Date;
  @Column('timestamp with time zone', { name: 'created_at', precision: 3 }) createdAt!: Date;
}

/** One run of a release; a scheduled run's row is inserted, unique per tick, before anyone is invited. */
@Entity('release_runs')
export class ReleaseRun {
  @PrimaryColumn('text') id!: string;
  @Column('text', { name: 'release_id' }) releaseId!: string;
  /** The tick this run is for; null for run now. */
  @Column('timestamp with time zone', { name: 'tick_at', precision: 3, nullable: true }) tickAt!: Date | null;
  @Column('timestamp with time zone', { name: 'started_at', precision: 3 }) startedAt!: Date;
  @Column('timestamp with time zone', { name: 'finished_at', precision: 3, nullable: true }) finishedAt!: Date | null;
  @Column('int') asked!: number;
  @Column('int') invited!: number;
  @Column('int') failed!: number;
  @Column('int', { name: 'skipped_for_capacity' }) skippedForCapacity!: number;
  @Column('text', { name: 'failed_entry_ids', array: true }) failedEntryIds!: string[];
  /** The request its entries are held and invited under: the api running it, or the one that took it over. */
  @Column('text', { name: 'request_id', nullable: true }) requestId!: string | null;
  /** Why the run stopped before its end (PostgreSQL or Redis away); null when it ran. */
  @Column('text', { nullable: true }) error!: string | null;
}
