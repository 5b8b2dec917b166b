import { Module } from '@nestjs/common';
import { WebhooksService } from './webhooks.service';

/** Webhook endpoints, test events and the delivery log (the webhooks app delivers). */
@Module({ providers: [WebhooksService], exports: [WebhooksService] })
export class WebhooksModule {}
