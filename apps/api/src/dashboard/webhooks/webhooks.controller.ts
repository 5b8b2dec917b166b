import { Body, Controller, Get, Param, Post, Res, UseFilters, UseGuards } from '@nestjs/common';
import { Clock, WebhookEndpoint } from '@app/shared';
import type { FastifyReply } from 'fastify';
import { ApiError } from '../../common/api-error';
import { DeliveryLog } from '../../webhooks/delivery-log';
import { WebhooksService } from '../../webhooks/webhooks.service';
import { DashboardGuard, LoginRedirect } from '../auth/dashboard.guard';
import { signatureFormatField, text, texts } from '../shared/forms';
import type { Notice } from '../auth/notice';
import { refusal } from '../shared/messages';
import { InProduct, ProductPage } from '../shared/product-page';
import { Replies } from '../shared/replies';
import type { Said } from '../shared/layout';
import { deleteEndpointPage, deliveryLogPage, rotateSecretPage, webhooksPage } from './pages';

/** Webhook endpoints of a product and mode, and their delivery logs. */
@Controller('dashboard/:productId/:mode')
@UseGuards(DashboardGuard)
@UseFilters(LoginRedirect)
export class DashboardWebhooksController {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly deliveries: DeliveryLog,
    private readonly replies: Replies,
    private readonly clock: Clock,
  ) {}

  @Get('webhooks')
  async list(@InProduct() at: ProductPage, @Res() reply: FastifyReply): Promise<void> {
    await this.endpointsPage(reply, at, 200, await this.replies.notice(at.identity, `${at.base}/webhooks`));
  }

  /** The new endpoint's secret is shown once, on the page this redirects to. */
  @Post('webhooks')
  async create(
    @InProduct() at: ProductPage,
    @Body() body: { url?: unknown; events?: unknown; signatureFormat?: unknown },
    @Res() reply: FastifyReply,
  ): Promise<void> {
    try {
      const { secret } = await this.webhooks.create({
        ...at.scope,
        url: text(body?.url),
        events: texts(body?.events),
        signatureFormat: signatureFormatField(body?.signatureFormat),
      });
      await this.replies.redirectWith(reply, `${at.base}/webhooks`, at.identity, { secret });
    } catch (error) {
      const { status, words } = refusal(error);
      await this.endpointsPage(reply, at, status, { refused: words });
    }
  }

  /** What deleting the endpoint takes with it; its button posts to delete. */
  @Get('webhooks/:endpointId/delete')
  async confirmDelete(@InProduct() at: ProductPage, @Param('endpointId') endpointId: string, @Res() reply: FastifyReply): Promise<void> {
    await this.replies.page(reply, 200, deleteEndpointPage(at, await this.endpoint(at, endpointId)));
  }

  /** What rotating the secret changes; its button posts to rotate. */
  @Get('webhooks/:endpointId/rotate')
  async confirmRotate(@InProduct() at: ProductPage, @Param('endpointId') endpointId: string, @Res() reply: FastifyReply): Promise<void> {
    await this.replies.page(reply, 200, rotateSecretPage(at, await this.endpoint(at, endpointId), this.clock.now()));
  }

  @Post('webhooks/:endpointId/:action')
  async act(@InProduct() at: ProductPage, @Param('endpointId') endpointId: string, @Param('action') action: string, @Res() reply: FastifyReply): Promise<void> {
    const { url } = await this.endpoint(at, endpointId);
    const back = (notice: Notice) => this.replies.redirectWith(reply, `${at.base}/webhooks`, at.identity, notice);
    switch (action) {
      case 'rotate':
        return back({ secret: (await this.webhooks.rotateSecret(endpointId)).secret });
      case 'test':
        await this.webhooks.sendTest(endpointId);
        return back({ done: `A webhook.test event is on its way to ${url}; see the delivery log.` });
      case 'disable':
      case 'enable':
        await this.webhooks.setDisabled(endpointId, action === 'disable');
        return back({ done: action === 'disable' ? `${url} is disabled: it gets no events until enabled.` : `${url} is enabled: it gets the next events.` });
      case 'delete':
        await this.webhooks.remove(endpointId);
        return back({ done: `${url} is deleted: it gets no more events.` });
      default:
        throw new ApiError('not_found', 'No such page.');
    }
  }

  @Get('webhooks/:endpointId')
  async deliveryLog(@InProduct() at: ProductPage, @Param('endpointId') endpointId: string, @Res() reply: FastifyReply): Promise<void> {
    await this.deliveryLogPage(reply, at, endpointId, 200, await this.replies.notice(at.identity, `${at.base}/webhooks/${endpointId}`));
  }

  @Post('webhooks/:endpointId/deliveries/:deliveryId/retry')
  async retry(
    @InProduct() at: ProductPage,
    @Param('endpointId') endpointId: string,
    @Param('deliveryId') deliveryId: string,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const endpoint = await this.webhooks.endpointOf(at.scope, endpointId);
    const delivery = endpoint && (await this.deliveries.of(endpointId)).find((candidate) => candidate.id === deliveryId);
    if (!delivery) throw new ApiError('not_found', 'No such delivery.');
    try {
      await this.deliveries.retryNow(deliveryId);
    } catch (error) {
      const { status, words } = refusal(error);
      return this.deliveryLogPage(reply, at, endpointId, status, { refused: words });
    }
    await this.replies.redirectWith(reply, `${at.base}/webhooks/${endpointId}`, at.identity, { done: `The ${delivery.eventType} delivery is being retried now; reload for its answer.` });
  }

  /** The product's endpoint; another product's is 404, as if it did not exist. */
  private async endpoint(at: ProductPage, endpointId: string): Promise<WebhookEndpoint> {
    const endpoint = await this.webhooks.endpointOf(at.scope, endpointId);
    if (!endpoint) throw new ApiError('not_found', 'No such endpoint.');
    return endpoint;
  }

  private async endpointsPage(reply: FastifyReply, at: ProductPage, status: number, notice?: Notice): Promise<void> {
    await this.replies.page(reply, status, webhooksPage(at, await this.webhooks.list(at.product.id, at.mode), notice));
  }

  private async deliveryLogPage(reply: FastifyReply, at: ProductPage, endpointId: string, status: number, said?: Said): Promise<void> {
    const endpoint = await this.endpoint(at, endpointId);
    await this.replies.page(reply, status, deliveryLogPage(at, endpoint, await this.deliveries.of(endpointId), said));
  }
}
