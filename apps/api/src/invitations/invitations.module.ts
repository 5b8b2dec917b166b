import { Module } from '@nestjs/common';
import { KeysModule } from '../keys/keys.module';
import { LineModule } from '../line/line.module';
import { InvitationMailer } from './invitation-mailer';
import { InvitationsController } from './invitations.controller';
import { InvitationsService } from './invitations.service';

/** Invitations: invite, reinvite, invite-next, the invited check, verify and redeem. */
@Module({
  imports: [KeysModule, LineModule],
  controllers: [InvitationsController],
  providers: [InvitationMailer, InvitationsService],
  exports: [InvitationsService],
})
export class InvitationsModule {}
