import { Mode, MODES } from '@app/shared';
import { ProductsService } from '../products/products.service';
import { UsageError } from './command';

/** Also what a missing --mode says (the option's `required`). */
export const MODE_PROBLEM = '--mode must be live or test.';

export function mode(value: string): Mode {
  if (!MODES.includes(value as Mode)) throw new UsageError(MODE_PROBLEM);
  return value as Mode;
}

export async function productMustExist(products: ProductsService, id: string): Promise<void> {
  if (!(await products.find(id))) throw new UsageError(`No product ${id}.`);
}
