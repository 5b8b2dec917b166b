import { Controller, Get, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ProductsService } from '../products/products.service';
import type { DashboardIdentity } from './dashboard-auth.service';
import { DashboardGuard, Identity, LoginRedirect } from './dashboard.guard';
import { OverviewService } from './overview.service';
import { InProduct, ProductPage } from './product-page';
import { Replies } from './replies';
import { overviewPage, productsPage } from './views/products';

/** The team's products, and each one's overview. */
@Controller('dashboard')
@UseGuards(DashboardGuard)
@UseFilters(LoginRedirect)
export class DashboardProductsController {
  constructor(
    private readonly products: ProductsService,
    private readonly overviews: OverviewService,
    private readonly replies: Replies,
  ) {}

  @Get()
  async list(@Identity() identity: DashboardIdentity, @Res() reply: FastifyReply): Promise<void> {
    await this.replies.page(reply, 200, productsPage(identity, await this.products.findMany(identity.productIds)));
  }

  @Get(':productId/:mode/overview')
  async overview(@InProduct() at: ProductPage, @Res() reply: FastifyReply): Promise<void> {
    await this.replies.page(reply, 200, overviewPage(at, await this.overviews.load(at.scope)));
  }
}
