import { Body, Controller, Get, Inject, Param, Post, Query, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { APP_CONFIG, AppConfig, Entry, Mode, newToken, Product, toEntry } from '@app/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { KeysService } from '../keys/keys.service';
import { ApiError } from '../common/api-error';
import { LineService } from '../line/line.service';
import { EntriesService } from '../entries/entries.service';
import { INVITE_NEXT } from '../invitations/invitations.dto';
import { MOVE_UP } from '../line/line.dto';
import { InvitationsService } from '../invitations/invitations.service';
import { PRODUCT_SETTINGS, ProductsService } from '../products/products.service';
import { WebhooksService } from '../webhooks/webhooks.service';
import { DashboardAuthService, DashboardIdentity } from './dashboard-auth.service';
import { DashboardGuard, Identity, LoginRedirect, SESSION_COOKIE, readCookie } from './dashboard.guard';
import { digits, entryFilters, parseForm, text } from './forms';
import { entryMessage, Notice, refusal } from './messages';
import { OverviewService } from './overview.service';
import {
  deliveryLogPage,
  entriesPage,
  entryPage,
  keysPage,
  LINE_PAGE,
  linePage,
  loginPage,
  overviewPage,
  productsPage,
  SETTINGS_FIELDS,
  settingsPage,
  webhooksPage,
} from './views';

const HTML = 'text/html; charset=utf-8';
const LOGIN_COOKIE = 'wl_login';
/** Pages of the dashboard are never framed, cached or sent elsewhere with their URL. */
const HEADERS = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'same-origin',
};

@Controller('dashboard')
@UseFilters(LoginRedirect)
export class DashboardController {
  constructor(
    private readonly auth: DashboardAuthService,
    private readonly entries: EntriesService,
    private readonly lineService: LineService,
    private readonly invitations: InvitationsService,
    private readonly keys: KeysService,
    private readonly webhooks: WebhooksService,
    private readonly products: ProductsService,
    private readonly overviews: OverviewService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The login form carries a token that must match a SameSite=Strict cookie, so no other site can post it (login CSRF). */
  @Get('login')
  async loginForm(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.loginPage(request, reply, 200);
  }

  @Post('login')
  async logIn(@Req() request: FastifyRequest, @Body() body: { email?: unknown; password?: unknown; _csrf?: unknown }, @Res() reply: FastifyReply): Promise<void> {
    const email = text(body?.email);
    try {
      if (!DashboardAuthService.csrfMatches(readCookie(request, LOGIN_COOKIE) ?? '', body?._csrf)) {
        throw new ApiError('forbidden', 'This form has expired or did not come from the dashboard; sign in again.');
      }
      const token = await this.auth.logIn(email, text(body?.password), request.ip);
      void reply.header('Set-Cookie', [
        `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=43200${this.secure}`,
        `${LOGIN_COOKIE}=; Path=/dashboard/login; HttpOnly; SameSite=Strict; Max-Age=0${this.secure}`,
      ]);
      await reply.redirect('/dashboard', 303);
    } catch (error) {
      const { status, words, retryAfterSeconds } = refusal(error);
      if (retryAfterSeconds) void reply.header('Retry-After', String(retryAfterSeconds));
      await this.loginPage(request, reply, status, words, email);
    }
  }

  @Post('logout')
  @UseGuards(DashboardGuard)
  async logOut(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.auth.logOut(readCookie(request, SESSION_COOKIE) ?? '');
    void reply.header('Set-Cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${this.secure}`);
    await reply.redirect('/dashboard/login', 303);
  }

  @Get()
  @UseGuards(DashboardGuard)
  async productList(@Identity() identity: DashboardIdentity, @Res() reply: FastifyReply): Promise<void> {
    const products = await this.products.findMany(identity.productIds);
    await this.page(reply, 200, productsPage(identity, products));
  }

  @Get(':productId/:mode/overview')
  @UseGuards(DashboardGuard)
  async overview(@Identity() identity: DashboardIdentity, @Param('productId') productId: string, @Param('mode') mode: Mode, @Res() reply: FastifyReply) {
    const product = await this.product(productId);
    await this.page(reply, 200, overviewPage(identity, product, mode, await this.overviews.load({ productId, mode })));
  }

  @Get(':productId/:mode/settings')
  @UseGuards(DashboardGuard)
  async settings(@Identity() identity: DashboardIdentity, @Param('productId') productId: string, @Param('mode') mode: Mode, @Res() reply: FastifyReply) {
    const product = await this.product(productId);
    const notice = await this.auth.takeNotice(identity, `/dashboard/${productId}/${mode}/settings`);
    await this.page(reply, 200, settingsPage(identity, product, mode, product, notice));
  }

  @Post(':productId/:mode/settings')
  @UseGuards(DashboardGuard)
  async saveSettings(
    @Identity() identity: DashboardIdentity,
    @Param('productId') productId: string,
    @Param('mode') mode: Mode,
    @Body() body: Record<string, unknown>,
    @Res() reply: FastifyReply,
  ) {
    const product = await this.product(productId);
    const fields = Object.fromEntries(SETTINGS_FIELDS.map((field) => [field, text(body?.[field])])) as Record<(typeof SETTINGS_FIELDS)[number], string>;
    try {
      await this.products.update(productId, parseForm(PRODUCT_SETTINGS, fields));
    } catch (error) {
      const { status, words } = refusal(error);
      return this.page(reply, status, settingsPage(identity, product, mode, fields, { error: words }));
    }
    await this.redirect(reply, identity, `/dashboard/${productId}/${mode}/settings`, { saved: true });
  }

  @Get(':productId/:mode/entries')
  @UseGuards(DashboardGuard)
  async entryList(
    @Identity() identity: DashboardIdentity,
    @Param('productId') productId: string,
    @Param('mode') mode: Mode,
    @Query() query: Record<string, unknown>,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const product = await this.product(productId);
    const listing = entryFilters(query, true);
    const page = await this.entries.list({ productId, mode }, listing);
    const email = typeof query.email === 'string' ? query.email.trim() : undefined;
    await this.page(reply, 200, entriesPage(identity, { product, mode, ...page, entries: page.data, email, state: listing.state }));
  }

  /** The filtered entries as CSV, newest first, streamed a thousand at a time. */
  @Get(':productId/:mode/entries.csv')
  @UseGuards(DashboardGuard)
  async exportEntries(
    @Param('productId') productId: string,
    @Param('mode') mode: Mode,
    @Query() query: Record<string, unknown>,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const filters = entryFilters(query, false);
    const entries = this.entries;
    async function* csv() {
      yield CSV_HEADER;
      let cursor: string | undefined;
      do {
        const page = await entries.list({ productId, mode }, { ...filters, limit: 1000, cursor });
        yield csvRows(page.data);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
    }
    await reply
      .headers({ ...HEADERS, 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="entries-${mode}.csv"` })
      .send(Readable.from(csv()));
  }

  @Get(':productId/:mode/entries/:id')
  @UseGuards(DashboardGuard)
  async entryDetail(
    @Identity() identity: DashboardIdentity,
    @Param('productId') productId: string,
    @Param('mode') mode: Mode,
    @Param('id') id: string,
    @Query('message') message: unknown,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const product = await this.product(productId);
    const record = await this.entries.record({ productId, mode }, id);
    const view = {
      product,
      mode,
      entry: toEntry(record),
      place: record.state === 'confirmed' ? await this.lineService.placeInLine(record) : null,
      movedUp: record.movedUp,
      referred: await this.entries.referred(record),
      message: typeof message === 'string' ? entryMessage(message) : undefined,
    };
    await this.page(reply, 200, entryPage(identity, view));
  }

  /** Invite, reinvite, move up and delete, through the very services the API uses. */
  @Post(':productId/:mode/entries/:id/:action')
  @UseGuards(DashboardGuard)
  async entryAction(
    @Param('productId') productId: string,
    @Param('mode') mode: Mode,
    @Param('id') id: string,
    @Param('action') action: string,
    @Body() body: { places?: unknown },
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const scope = { productId, mode };
    // An unknown entry is 404, not a refusal shown on a page that does not exist.
    await this.entries.record(scope, id);
    const back = (message: string) => reply.redirect(`/dashboard/${productId}/${mode}/entries/${encodeURIComponent(id)}?message=${message}`, 303);
    try {
      switch (action) {
        case 'invite':
          await this.invitations.invite(scope, id);
          return void (await back('invited'));
        case 'reinvite':
          await this.invitations.reinvite(scope, id);
          return void (await back('reinvited'));
        case 'move-up':
          await this.lineService.moveUp(scope, id, parseForm(MOVE_UP, { places: digits(body?.places) }).places);
          return void (await back('moved-up'));
        case 'delete':
          await this.entries.delete(scope, id);
          return void (await reply.redirect(`/dashboard/${productId}/${mode}/entries`, 303));
        default:
          throw new ApiError('not_found', 'No such page.');
      }
    } catch (error) {
      if (!(error instanceof ApiError) || !entryMessage(error.code)) throw error;
      await back(error.code);
    }
  }

  @Get(':productId/:mode/line')
  @UseGuards(DashboardGuard)
  async line(@Identity() identity: DashboardIdentity, @Param('productId') productId: string, @Param('mode') mode: Mode, @Res() reply: FastifyReply) {
    const product = await this.product(productId);
    const notice = await this.auth.takeNotice(identity, `/dashboard/${productId}/${mode}/line`);
    await this.page(reply, 200, linePage(identity, product, mode, await this.lineService.front({ productId, mode }, LINE_PAGE), notice?.invitedNext));
  }

  @Post(':productId/:mode/line/invite-next')
  @UseGuards(DashboardGuard)
  async inviteNext(
    @Identity() identity: DashboardIdentity,
    @Param('productId') productId: string,
    @Param('mode') mode: Mode,
    @Body() body: { count?: unknown },
    @Res() reply: FastifyReply,
  ) {
    const { count } = parseForm(INVITE_NEXT, { count: digits(body?.count) });
    const result = await this.invitations.inviteNext({ productId, mode }, count);
    const invitedNext = { invited: result.invited.length, failed: result.failed.length };
    await this.redirect(reply, identity, `/dashboard/${productId}/${mode}/line`, { invitedNext });
  }

  @Get(':productId/:mode/keys')
  @UseGuards(DashboardGuard)
  async keyList(@Identity() identity: DashboardIdentity, @Param('productId') productId: string, @Param('mode') mode: Mode, @Res() reply: FastifyReply) {
    const product = await this.product(productId);
    const notice = await this.auth.takeNotice(identity, `/dashboard/${productId}/${mode}/keys`);
    await this.page(reply, 200, keysPage(identity, product, mode, await this.keys.list(productId, mode), notice?.keyPair));
  }

  /** The new secret is shown once, on the page this redirects to; only its hash is kept with the key. */
  @Post(':productId/:mode/keys')
  @UseGuards(DashboardGuard)
  async createKey(@Identity() identity: DashboardIdentity, @Param('productId') productId: string, @Param('mode') mode: Mode, @Res() reply: FastifyReply) {
    const keyPair = await this.keys.createPair(productId, mode);
    await this.redirect(reply, identity, `/dashboard/${productId}/${mode}/keys`, { keyPair });
  }

  @Post(':productId/:mode/keys/:keyId/revoke')
  @UseGuards(DashboardGuard)
  async revokeKey(@Param('productId') productId: string, @Param('mode') mode: Mode, @Param('keyId') keyId: string, @Res() reply: FastifyReply) {
    if (!(await this.keys.revokeById(productId, keyId))) throw new ApiError('not_found', 'No such key in use.');
    await reply.redirect(`/dashboard/${productId}/${mode}/keys`, 303);
  }

  @Get(':productId/:mode/webhooks')
  @UseGuards(DashboardGuard)
  async endpoints(@Identity() identity: DashboardIdentity, @Param('productId') productId: string, @Param('mode') mode: Mode, @Res() reply: FastifyReply) {
    const notice = await this.auth.takeNotice(identity, `/dashboard/${productId}/${mode}/webhooks`);
    await this.webhooksPage(reply, identity, productId, mode, 200, notice);
  }

  /** The new endpoint's secret is shown once, on the page this redirects to. */
  @Post(':productId/:mode/webhooks')
  @UseGuards(DashboardGuard)
  async createEndpoint(
    @Identity() identity: DashboardIdentity,
    @Param('productId') productId: string,
    @Param('mode') mode: Mode,
    @Body() body: { url?: unknown; events?: unknown },
    @Res() reply: FastifyReply,
  ) {
    const events = ([] as unknown[]).concat(body?.events ?? []).filter((type): type is string => typeof type === 'string');
    try {
      const created = await this.webhooks.create({ productId, mode, url: text(body?.url), events });
      await this.redirect(reply, identity, `/dashboard/${productId}/${mode}/webhooks`, { secret: created.secret });
    } catch (error) {
      const { status, words } = refusal(error);
      await this.webhooksPage(reply, identity, productId, mode, status, { error: words });
    }
  }

  @Post(':productId/:mode/webhooks/:endpointId/:action')
  @UseGuards(DashboardGuard)
  async endpointAction(
    @Identity() identity: DashboardIdentity,
    @Param('productId') productId: string,
    @Param('mode') mode: Mode,
    @Param('endpointId') endpointId: string,
    @Param('action') action: string,
    @Res() reply: FastifyReply,
  ) {
    if (!(await this.webhooks.endpointOf(productId, endpointId))) throw new ApiError('not_found', 'No such endpoint.');
    const back = (notice?: Notice) => this.redirect(reply, identity, `/dashboard/${productId}/${mode}/webhooks`, notice);
    switch (action) {
      case 'rotate':
        return back({ secret: (await this.webhooks.rotateSecret(endpointId)).secret });
      case 'test':
        await this.webhooks.sendTest(endpointId);
        return back({ sent: true });
      case 'disable':
      case 'enable':
        await this.webhooks.setDisabled(endpointId, action === 'disable');
        break;
      case 'delete':
        await this.webhooks.remove(endpointId);
        break;
      default:
        throw new ApiError('not_found', 'No such page.');
    }
    await back();
  }

  @Get(':productId/:mode/webhooks/:endpointId')
  @UseGuards(DashboardGuard)
  async deliveryLog(
    @Identity() identity: DashboardIdentity,
    @Param('productId') productId: string,
    @Param('mode') mode: Mode,
    @Param('endpointId') endpointId: string,
    @Res() reply: FastifyReply,
  ) {
    await this.deliveryLogPage(reply, identity, productId, mode, endpointId, 200);
  }

  @Post(':productId/:mode/webhooks/:endpointId/deliveries/:deliveryId/retry')
  @UseGuards(DashboardGuard)
  async retryDelivery(
    @Identity() identity: DashboardIdentity,
    @Param('productId') productId: string,
    @Param('mode') mode: Mode,
    @Param('endpointId') endpointId: string,
    @Param('deliveryId') deliveryId: string,
    @Res() reply: FastifyReply,
  ) {
    const endpoint = await this.webhooks.endpointOf(productId, endpointId);
    const delivery = endpoint && (await this.webhooks.deliveryLog(endpointId)).find((candidate) => candidate.id === deliveryId);
    if (!delivery) throw new ApiError('not_found', 'No such delivery.');
    try {
      await this.webhooks.retryNow(deliveryId);
    } catch (error) {
      const { status, words } = refusal(error);
      return this.deliveryLogPage(reply, identity, productId, mode, endpointId, status, words);
    }
    await reply.redirect(`/dashboard/${productId}/${mode}/webhooks/${endpointId}`, 303);
  }

  private async deliveryLogPage(reply: FastifyReply, identity: DashboardIdentity, productId: string, mode: Mode, endpointId: string, status: number, error?: string) {
    const endpoint = await this.webhooks.endpointOf(productId, endpointId);
    if (!endpoint) throw new ApiError('not_found', 'No such endpoint.');
    const product = await this.product(productId);
    await this.page(reply, status, deliveryLogPage(identity, product, mode, endpoint, await this.webhooks.deliveryLog(endpointId), error));
  }

  private async webhooksPage(
    reply: FastifyReply,
    identity: DashboardIdentity,
    productId: string,
    mode: Mode,
    status: number,
    notice?: Parameters<typeof webhooksPage>[4],
  ) {
    const product = await this.product(productId);
    await this.page(reply, status, webhooksPage(identity, product, mode, await this.webhooks.list(productId, mode), notice));
  }

  private async product(id: string): Promise<Product> {
    const product = await this.products.find(id);
    if (!product) throw new ApiError('not_found', 'No such page.');
    return product;
  }

  /** Post/redirect/get: an action's result waits in the session for the page at `path`, never in the URL. */
  private async redirect(reply: FastifyReply, identity: DashboardIdentity, path: string, notice?: Notice): Promise<void> {
    if (notice) await this.auth.keepNotice(identity, path, notice);
    await reply.redirect(path, 303);
  }

  private async loginPage(request: FastifyRequest, reply: FastifyReply, status: number, error?: string, email?: string): Promise<void> {
    const token = readCookie(request, LOGIN_COOKIE) || newToken();
    void reply.header('Set-Cookie', `${LOGIN_COOKIE}=${token}; Path=/dashboard/login; HttpOnly; SameSite=Strict${this.secure}`);
    await this.page(reply, status, loginPage(token, error, email));
  }

  /** Cookies are Secure when the dashboard is served over https. */
  private get secure(): string {
    return this.config.PUBLIC_BASE_URL.startsWith('https:') ? '; Secure' : '';
  }

  private async page(reply: FastifyReply, status: number, body: string): Promise<void> {
    await reply.status(status).headers({ ...HEADERS, 'Content-Type': HTML }).send(body);
  }
}

const CSV_COLUMNS = ['id', 'email', 'state', 'createdAt', 'confirmedAt', 'invitedAt', 'redeemedAt', 'referralCode', 'referrals'] as const;
export const CSV_HEADER = `${CSV_COLUMNS.join(',')}\r\n`;

/** RFC 4180 CSV rows; a cell that a spreadsheet would run as a formula (= + - @) is prefixed with '. */
export function csvRows(entries: Entry[]): string {
  const cell = (value: string | number | null) => {
    const text = value === null ? '' : String(value);
    const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
    return /[",\r\n']/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  return entries.map((entry) => `${CSV_COLUMNS.map((column) => cell(entry[column])).join(',')}\r\n`).join('');
}
