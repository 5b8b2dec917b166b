import { Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Readable } from 'node:stream';
import { DashboardAuthService, DashboardIdentity } from '../auth/dashboard-auth.service';
import type { Notice } from '../auth/notice';

/** Pages of the dashboard are never cached (the rest of their headers: common/security-headers.ts). */
const HEADERS = { 'Cache-Control': 'no-store' };

/**
 * How the dashboard answers: a page, a download, or, after every action, a redirect to the page that
 * shows its result (post/redirect/get). What that page shows once waits in the session, never in the URL.
 */
@Injectable()
export class Replies {
  constructor(private readonly auth: DashboardAuthService) {}

  async page(reply: FastifyReply, status: number, html: string): Promise<void> {
    await reply.status(status).headers({ ...HEADERS, 'Content-Type': 'text/html; charset=utf-8' }).send(html);
  }

  async csv(reply: FastifyReply, filename: string, rows: AsyncIterable<string>): Promise<void> {
    await reply
      .headers({ ...HEADERS, 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="${filename}"` })
      .send(Readable.from(rows));
  }

  async redirect(reply: FastifyReply, path: string): Promise<void> {
    await reply.redirect(path, 303);
  }

  /** Redirects to the page at `path` (or to `to`, the same page with a query), which shows `notice` once. */
  async redirectWith(reply: FastifyReply, path: string, identity: DashboardIdentity, notice: Notice, to = path): Promise<void> {
    await this.auth.keepNotice(identity, path, notice);
    await this.redirect(reply, to);
  }

  /** What the page at `path` shows once, if an action left something for it. */
  notice(identity: DashboardIdentity, path: string): Promise<Notice | undefined> {
    return this.auth.takeNotice(identity, path);
  }
}
