import { Body, Controller, Get, Inject, Param, Post, Query, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { APP_CONFIG, AppConfig, Entry, Mode, newToken, normalizeEmail, Product, toEntry } from '@app/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { KeysService } from '../keys/keys.service';
import { ApiError } from '../common/api-error';
import { parseInput } from '../common/validation';
import { LIST_QUERY } from '../entries/entries.controller';
import { LineService } from '../line/line.service';
import { EntriesService, ListQuery } from '../entries/entries.service';
import { InvitationsService } from '../invitations/invitations.service';
import { PRODUCT_SETTINGS, ProductsService } from '../products/products.service';
import { WebhookError, WebhooksService } from '../webhooks/webhooks.service';
import { DashboardAuthService, DashboardIdentity } from './dashboard-auth.service';
import { DashboardGuard, Identity, LoginRedirect, SESSION_COOKIE, readCookie } from './dashboard.guard';
import { OverviewService } from './overview.service';
import {
  ACTION_MESSAGES,
  deliveryLogPage,
  entriesPage,
  entryPage,
  keysPage,
  LINE_PAGE,
  linePage,
  loginPage,
  Notice,
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
    const email = typeof body?.email === 'string' ? body.email : '';
    if (!DashboardAuthService.csrfMatches(readCookie(request, LOGIN_COOKIE) ?? '', body?._csrf)) {
      return this.loginPage(request, reply, 403, 'This form has expired or did not come from the dashboard; sign in again.', email);
    }
    try {
      const token = await this.auth.logIn(email, typeof body?.password === 'string' ? body.password : '', request.ip);
      void reply.header('Set-Cookie', [
        `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=43200${this.secure}`,
        `${LOGIN_COOKIE}=; Path=/dashboard/login; HttpOnly; SameSite=Strict; Max-Age=0${this.secure}`,
      ]);
      await reply.redirect('/dashboard', 303);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.details.retryAfterSeconds) void reply.header('Retry-After', String(error.details.retryAfterSeconds));
      await this.loginPage(request, reply, error.status, error.message, email);
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
    const fields = Object.fromEntries(SETTINGS_FIELDS.map((field) => [field, typeof body?.[field] === 'string' ? body[field] : ''])) as Record<(typeof SETTINGS_FIELDS)[number], string>;
    const parsed = PRODUCT_SETTINGS.safeParse(fields);
    if (!parsed.success) {
      return this.page(reply, 400, settingsPage(identity, product, mode, fields, { error: `${parsed.error.issues[0].message}.` }));
    }
    await this.products.update(productId, parsed.data);
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
    const listing = entryListing(query, true);
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
    const filters = entryListing(query, false);
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
      message: typeof message === 'string' ? ACTION_MESSAGES.get(message) : undefined,
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
        case 'move-up': {
          const places = wholeNumber(body?.places);
          if (!Number.isInteger(places) || places < 1 || places > 1_000_000) throw new ApiError('invalid_request', 'places');
          await this.lineService.moveUp(scope, id, places);
          return void (await back('moved-up'));
        }
        case 'delete':
          await this.entries.delete(scope, id);
          return void (await reply.redirect(`/dashboard/${productId}/${mode}/entries`, 303));
        default:
          throw new ApiError('not_found', 'No such page.');
      }
    } catch (error) {
      if (error instanceof ApiError && ACTION_MESSAGES.has(error.code)) return void (await back(error.code));
      throw error;
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
    const count = wholeNumber(body?.count);
    if (!Number.isInteger(count) || count < 1 || count > 1000) throw new ApiError('invalid_request', 'Invite from 1 to 1,000 people at a time.');
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
      const created = await this.webhooks.create({ productId, mode, url: typeof body?.url === 'string' ? body.url : '', events });
      await this.redirect(reply, identity, `/dashboard/${productId}/${mode}/webhooks`, { secret: created.secret });
    } catch (error) {
      if (!(error instanceof WebhookError)) throw error;
      await this.webhooksPage(reply, identity, productId, mode, error.status, { error: error.message });
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
      if (!(error instanceof WebhookError)) throw error;
      return this.deliveryLogPage(reply, identity, productId, mode, endpointId, error.status, error.message);
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

/** A whole number as a form's number field posts it: digits only (no JSON values, no 0x10 or 1e3), else NaN. */
function wholeNumber(value: unknown): number {
  return typeof value === 'string' && /^\d{1,7}$/.test(value.trim()) ? Number(value) : NaN;
}

/**
 * The entries list's filters: the API's, except that the search box matches part of an address
 * when what was typed is not a whole one.
 */
function entryListing(query: Record<string, unknown>, paged: boolean): ListQuery {
  const search = typeof query.email === 'string' ? query.email.trim().toLowerCase().slice(0, 254) : '';
  // No address holds a control character, and PostgreSQL text cannot hold a NUL at all.
  if (/\p{Cc}/u.test(search)) throw new ApiError('invalid_request', 'Search for an address or a part of one, without control characters.');
  const filters = Object.entries(query).filter(([key, value]) => value !== '' && key !== 'email' && (paged || key !== 'cursor'));
  const parsed = parseInput(LIST_QUERY, Object.fromEntries(filters), 'query');
  if (!search) return parsed;
  const email = normalizeEmail(search);
  return email ? { ...parsed, email } : { ...parsed, emailContains: search };
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
