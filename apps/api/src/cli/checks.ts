import { isSignatureFormat, Mode, MODES, SIGNATURE_FORMATS, SignatureFormat } from '@app/shared';
import { ProductsService } from '../products/products.service';
import { UsageError } from './command';

/** Also what a missing --mode says (the option's `required`). */
export const MODE_PROBLEM = '--mode must be live or test.';

export function mode(value: string): Mode {
  if (!MODES.includes(value as Mode)) throw new UsageError(MODE_PROBLEM);
  return value as Mode;
}

export function signatureFormat(value: string): SignatureFormat {
  if (!isSignatureFormat(value)) throw new UsageError(`--signature must be ${SIGNATURE_FORMATS.join(' or ')}.`);
  return value;
}

export async function productMustExist(products: ProductsService, id: string): Promise<void> {
  if (!(await products.find(id))) throw new UsageError(`No product ${id}.`);
}
