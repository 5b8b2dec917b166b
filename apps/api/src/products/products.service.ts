import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Clock, newId, Product } from '@app/shared';
import { DataSource, In } from 'typeorm';
import { z } from 'zod';
import { KeyPair, KeysService } from '../keys/keys.service';
import { LineService } from '../line/line.service';

export interface NewProduct {
  name: string;
  inviteUrl?: string | null;
  signupUrl?: string | null;
  referralPlaces?: number;
}

const line = (label: string) =>
  z
    .string()
    .trim()
    .min(1, `${label} cannot be empty`)
    .max(100, `${label} is at most 100 characters`)
    .refine((value) => !/\p{Cc}/u.test(value), `${label} cannot hold control characters`);
const optional = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (value === '' ? null : value), schema.nullable());
const pageUrl = (label: string) =>
  z
    .string()
    .trim()
    .max(2000, `${label} is at most 2,000 characters`)
    // The URL parser drops tabs and line breaks that would be stored as typed; a NUL cannot be stored at all.
    .refine((value) => !/\p{Cc}/u.test(value), `${label} cannot hold control characters`)
    .refine((value) => /^https?:\/\//i.test(value) && URL.canParse(value), `${label} must be an http(s) URL`);

/** What the team may change about its product; the sender name and URLs are cleared with ''. */
export const PRODUCT_SETTINGS = z.object({
  name: line('The name'),
  senderName: optional(line('The sender name')),
  inviteUrl: optional(pageUrl('The invite URL')),
  signupUrl: optional(pageUrl('The sign-up page URL')),
  referralPlaces: z
    .string()
    .trim()
    .regex(/^\d{1,4}$/, 'Referral places must be a whole number from 0 to 9999')
    .transform(Number),
});
export type ProductSettings = z.output<typeof PRODUCT_SETTINGS>;

export interface CreatedProduct {
  id: string;
  keys: { live: KeyPair; test: KeyPair };
}

@Injectable()
export class ProductsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly keys: KeysService,
    private readonly line: LineService,
    private readonly clock: Clock,
  ) {}

  /** A product with a live and a test key pair; the keys are shown once. */
  async create(input: NewProduct): Promise<CreatedProduct> {
    return this.db.transaction(async (manager) => {
      const id = newId('prod');
      await manager.insert(Product, {
        id,
        name: input.name,
        inviteUrl: input.inviteUrl ?? null,
        signupUrl: input.signupUrl ?? null,
        referralPlaces: input.referralPlaces ?? 1,
        createdAt: this.clock.now(),
      });
      const live = await this.keys.createPair(id, 'live', manager);
      const test = await this.keys.createPair(id, 'test', manager);
      return { id, keys: { live, test } };
    });
  }

  /** Changes the settings; a new number of referral places moves everyone waiting to their new place. */
  async update(id: string, settings: ProductSettings): Promise<void> {
    await this.db.transaction(async (manager) => {
      await manager.update(Product, id, settings);
      await this.line.rekey(manager, id, settings.referralPlaces);
    });
  }

  async find(id: string): Promise<Product | null> {
    return this.db.getRepository(Product).findOneBy({ id });
  }

  /** The products of these ids (a dashboard user's teams), by name. */
  async findMany(ids: string[]): Promise<Product[]> {
    return this.db.getRepository(Product).find({ where: { id: In(ids) }, order: { name: 'ASC' } });
  }
}
