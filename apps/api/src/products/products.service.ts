import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Clock, newId, Product } from '@app/shared';
import { DataSource } from 'typeorm';
import { KeyPair, KeysService } from '../auth/keys.service';

export interface NewProduct {
  name: string;
  inviteUrl?: string | null;
  signupUrl?: string | null;
  referralPlaces?: number;
}

export interface CreatedProduct {
  id: string;
  keys: { live: KeyPair; test: KeyPair };
}

@Injectable()
export class ProductsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly keys: KeysService,
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

  async find(id: string): Promise<Product | null> {
    return this.db.getRepository(Product).findOneBy({ id });
  }
}
