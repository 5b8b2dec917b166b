import { Module } from '@nestjs/common';
import { InvitationsModule } from '../invitations/invitations.module';
import { KeysModule } from '../keys/keys.module';
import { MailQuota } from './mail-quota';
import { ReleaseRunner } from './release-runner';
import { ReleaseSchedulers } from './release-schedulers';
import { ReleasesController } from './releases.controller';
import { ReleasesService } from './releases.service';
import { RunForecasts } from './run-forecast';
import { RunLocks } from './run-locks';

/** Scheduled releases: their routes, service, schedulers and runs (the CLI and the dashboard use the service). */
@Module({
  imports: [KeysModule, InvitationsModule],
  controllers: [ReleasesController],
  providers: [ReleasesService, ReleaseSchedulers, ReleaseRunner, RunLocks, MailQuota, RunForecasts],
  exports: [ReleasesService, ReleaseSchedulers, ReleaseRunner],
})
export class ReleasesModule {}
