import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { EntryRecord } from '@app/shared';
import { DataSource } from 'typeorm';
import type { KeyScope } from '../auth/keys.service';

@Injectable()
export class InvitationsService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** An address is invited while its entry is invited or redeemed; unknown addresses are not. */
  async isInvited(scope: KeyScope, email: string): Promise<{ invited: boolean }> {
    const record = await this.db
      .getRepository(EntryRecord)
      .findOne({ where: { productId: scope.productId, mode: scope.mode, email }, select: { state: true } });
    return { invited: record?.state === 'invited' || record?.state === 'redeemed' };
  }
}
