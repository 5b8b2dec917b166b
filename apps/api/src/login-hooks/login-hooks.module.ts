import { Module } from '@nestjs/common';
import { InvitationsModule } from '../invitations/invitations.module';
import { LoginHooksController } from './login-hooks.controller';
import { LoginHooksService } from './login-hooks.service';

/** Sign-up hooks that Supabase Auth and Ory Kratos call: made in the dashboard, answered with the invited check. */
@Module({
  imports: [InvitationsModule],
  controllers: [LoginHooksController],
  providers: [LoginHooksService],
  exports: [LoginHooksService],
})
export class LoginHooksModule {}
