import { Controller, Get, Inject, Res, UseFilters, UseGuards } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/shared';
import type { FastifyReply } from 'fastify';
import { KeysService } from '../../keys/keys.service';
import { PrivacyTrail, privacyTrailCsv } from '../../personal-data/privacy-trail';
import { ProductsService } from '../../products/products.service';
import type { DashboardIdentity } from '../auth/dashboard-auth.service';
import { DashboardGuard, Identity, LoginRedirect } from '../auth/dashboard.guard';
import { OverviewService } from './overview.service';
import { InProduct, ProductPage } from '../shared/product-page';
import { Replies } from '../shared/replies';
import { TRAIL_ON_OVERVIEW } from './privacy-trail';
import { isEmpty, overviewPage, productsPage } from './pages';

/** The team's products, and each one's overview with its privacy trail. */
@Controller('dashboard')
@UseGuards(DashboardGuard)
@UseFilters(LoginRedirect)
export class DashboardProductsController {
  constructor(
    private readonly products: ProductsService,
    private readonly overviews: OverviewService,
    private readonly trail: PrivacyTrail,
    private readonly keys: KeysService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly replies: Replies,
  ) {}

  @Get()
  async list(@Identity() identity: DashboardIdentity, @Res() reply: FastifyReply): Promise<void> {
    const [products, modes] = await Promise.all([this.products.findMany(identity.productIds), this.overviews.landingModes(identity.productIds)]);
    await this.replies.page(reply, 200, productsPage(identity, products, modes));
  }

  @Get(':productId/:mode/overview')
  async overview(@InProduct() at: ProductPage, @Res() reply: FastifyReply): Promise<void> {
    const [overview, trail] = await Promise.all([this.overviews.load(at.scope), this.trail.list(at.scope, TRAIL_ON_OVERVIEW)]);
    const steps = isEmpty(overview)
      ? { publicBase: this.config.PUBLIC_BASE_URL, here: await this.keys.publishableInUse(at.product.id, at.mode), test: await this.keys.publishableInUse(at.product.id, 'test') }
      : null;
    await this.replies.page(reply, 200, overviewPage(at, overview, trail, steps));
  }

  /** The whole privacy trail of the product's mode, newest first. */
  @Get(':productId/:mode/privacy-requests.csv')
  async trailCsv(@InProduct() at: ProductPage, @Res() reply: FastifyReply): Promise<void> {
    await this.replies.csv(reply, `privacy-requests-${at.mode}.csv`, privacyTrailCsv(this.trail, at.scope));
  }
}
