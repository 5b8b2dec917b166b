import { Module } from '@nestjs/common';
import { DeliveryLog } from './delivery-log';
import { WebhooksService } from './webhooks.service';

/** Webhook endpoints, test events and the delivery log (the webhooks app delivers). */
@Module({ providers: [WebhooksService, DeliveryLog], exports: [WebhooksService, DeliveryLog] })
export class WebhooksModule {}
