import { Module } from '@nestjs/common';
import { KeysModule } from '../keys/keys.module';
import { LineModule } from '../line/line.module';
import { ProductsService } from './products.service';

/** Products and their settings. */
@Module({ imports: [KeysModule, LineModule], providers: [ProductsService], exports: [ProductsService] })
export class ProductsModule {}
