import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { EntryRecord } from '@app/shared';
import { DataSource } from 'typeorm';
import type { ProductScope } from '../common/scope';
import { notFound } from './entries.service';
import type { EntryProfile } from './profile.dto';

/** The profile of an entry of the key's product and mode; 404 outside it, as for the entry itself. */
@Injectable()
export class ProfileService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async get(scope: ProductScope, id: string): Promise<EntryProfile> {
    const record = await this.db.getRepository(EntryRecord).findOne({ select: { id: true, locale: true }, where: { id, productId: scope.productId, mode: scope.mode } });
    if (!record) throw notFound();
    return { id: record.id, locale: record.locale };
  }
}
