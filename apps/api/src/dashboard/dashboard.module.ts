import { Module } from '@nestjs/common';
import { EntriesModule } from '../entries/entries.module';
import { InvitationsModule } from '../invitations/invitations.module';
import { KeysModule } from '../keys/keys.module';
import { LineModule } from '../line/line.module';
import { ProductsModule } from '../products/products.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { DashboardAuthModule } from './dashboard-auth.module';
import { DashboardController } from './dashboard.controller';
import { OverviewService } from './overview.service';

/** The team dashboard: pages over the same services as the API. */
@Module({
  imports: [DashboardAuthModule, KeysModule, EntriesModule, LineModule, InvitationsModule, ProductsModule, WebhooksModule],
  controllers: [DashboardController],
  providers: [OverviewService],
})
export class DashboardModule {}
