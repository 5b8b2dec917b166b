import { createParamDecorator, ExecutionContext, Injectable, PipeTransform } from '@nestjs/common';
import { Mode, MODES, Product } from '@app/shared';
import { ApiError } from '../../common/api-error';
import type { ProductScope } from '../../common/scope';
import { ProductsService } from '../../products/products.service';
import type { DashboardIdentity } from '../auth/dashboard-auth.service';
import { DashboardRequest, LoginRequired } from '../auth/dashboard.guard';

/** A page under /dashboard/:productId/:mode: who looks at it, and the product and mode it shows. */
export interface ProductPage {
  identity: DashboardIdentity;
  product: Product;
  mode: Mode;
  /** What the services are asked for: the product and mode of the URL. */
  scope: ProductScope;
  /** /dashboard/<product>/<mode>, under which each section of the product has its pages. */
  base: string;
}

interface ProductInUrl {
  identity?: DashboardIdentity;
  productId?: string;
  mode?: string;
}

const ProductInUrl = createParamDecorator((_: unknown, context: ExecutionContext): ProductInUrl => {
  const request = context.switchToHttp().getRequest<DashboardRequest>();
  const { productId, mode } = request.params as { productId?: string; mode?: string };
  return { identity: request.identity, productId, mode };
});

/** The URL's product for a member of its team; another product is 404, as if it did not exist. */
@Injectable()
export class TeamProduct implements PipeTransform<ProductInUrl, Promise<ProductPage>> {
  constructor(private readonly products: ProductsService) {}

  async transform({ identity, productId, mode }: ProductInUrl): Promise<ProductPage> {
    if (!identity) throw new LoginRequired();
    const ours = productId !== undefined && identity.productIds.includes(productId) && MODES.includes(mode as Mode);
    const product = ours ? await this.products.find(productId) : null;
    if (!product) throw new ApiError('not_found', 'No such page.');
    const scope = { productId: product.id, mode: mode as Mode };
    return { identity, product, mode: scope.mode, scope, base: `/dashboard/${product.id}/${scope.mode}` };
  }
}

/** The product and mode of a page under /dashboard/:productId/:mode, resolved for the signed-in user. */
export const InProduct = () => ProductInUrl(undefined, TeamProduct);
