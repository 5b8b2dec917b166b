import { Module } from '@nestjs/common';
import { KeysModule } from '../keys/keys.module';
import { LineModule } from '../line/line.module';
import { Capacity } from './capacity';
import { InvitationMailer } from './invitation-mailer';
import { InvitationPageController } from './invitation-page.controller';
import { InvitationsController } from './invitations.controller';
import { InvitationsService } from './invitations.service';
import { InviteCodesService } from './invite-codes.service';

/** Invitations: invite, reinvite, invite-next, the invited check, verify and redeem, the hosted invitation page. */
@Module({
  imports: [KeysModule, LineModule],
  controllers: [InvitationsController, InvitationPageController],
  providers: [InvitationMailer, InvitationsService, InviteCodesService, Capacity],
  exports: [InvitationsService, InviteCodesService, Capacity],
})
export class InvitationsModule {}
