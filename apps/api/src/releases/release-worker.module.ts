import { Module } from '@nestjs/common';
import { ReleasesModule } from './releases.module';
import { ReleaseWorker } from './release.worker';

/** The releases queue's worker, which only the api app runs (not the CLI, which uses ReleasesModule alone). */
@Module({ imports: [ReleasesModule], providers: [ReleaseWorker] })
export class ReleaseWorkerModule {}
