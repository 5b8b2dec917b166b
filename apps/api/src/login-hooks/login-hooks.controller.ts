import { Controller, createParamDecorator, ExecutionContext, Param, Post, RawBodyRequest, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { KratosRefusal, SupabaseAnswer } from './login-hooks.dto';
import { LoginHooksService } from './login-hooks.service';
import { HookAnswer, HookCall, KRATOS, SUPABASE } from './login-systems';

/** The call as it arrived: headers, the body's bytes (what a signature covers) and the body read as JSON. */
const Call = createParamDecorator((_: unknown, context: ExecutionContext): HookCall => {
  const request = context.switchToHttp().getRequest<RawBodyRequest<FastifyRequest>>();
  return { headers: request.headers, rawBody: request.rawBody, body: request.body };
});

/** The sign-up hooks that login systems call themselves, each with the URL and secret made in the dashboard. */
@Controller('hooks/v1')
export class LoginHooksController {
  constructor(private readonly hooks: LoginHooksService) {}

  /** Supabase Auth's "Before User Created" HTTP hook. */
  @Post('supabase/:hookId')
  supabase(@Param('hookId') hookId: string, @Call() call: HookCall, @Res({ passthrough: true }) reply: FastifyReply): Promise<SupabaseAnswer> {
    return send(reply, this.hooks.check(SUPABASE, hookId, call));
  }

  /** Ory Kratos' registration web_hook, with response.parse. */
  @Post('kratos/:hookId')
  kratos(@Param('hookId') hookId: string, @Call() call: HookCall, @Res({ passthrough: true }) reply: FastifyReply): Promise<KratosRefusal | Record<string, never>> {
    return send(reply, this.hooks.check(KRATOS, hookId, call));
  }
}

async function send<Body>(reply: FastifyReply, answer: Promise<HookAnswer<Body>>): Promise<Body> {
  const { status, body } = await answer;
  void reply.status(status);
  return body;
}
