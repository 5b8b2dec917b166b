import { Module } from '@nestjs/common';
import { EntriesModule } from '../entries/entries.module';
import { KeysModule } from '../keys/keys.module';
import { PersonalDataController } from './personal-data.controller';
import { PersonalDataService } from './personal-data.service';
import { PrivacyTrail } from './privacy-trail';

/** A person's own data: the my-data page, its mail's link, the export and the deletion, and their trail for the team. */
@Module({ imports: [KeysModule, EntriesModule], controllers: [PersonalDataController], providers: [PersonalDataService, PrivacyTrail], exports: [PrivacyTrail] })
export class PersonalDataModule {}
