import { Controller, HttpCode, Post, Req, UseGuards } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { KeyScope } from '../common/scope';
import { Query } from '../common/validation';
import { Scope, SecretKeyGuard } from '../keys/secret-key.guard';
import { csvBody } from './csv-body';
import { IMPORT_QUERY, ImportQuery, ImportReport } from './imports.dto';
import { ImportsService } from './imports.service';

@Controller('api/v1/entries')
@UseGuards(SecretKeyGuard)
export class ImportsController {
  constructor(private readonly imports: ImportsService) {}

  @Post('import')
  @HttpCode(200)
  import(@Scope() scope: KeyScope, @Query(IMPORT_QUERY) query: ImportQuery, @Req() request: FastifyRequest): Promise<ImportReport> {
    return this.imports.importCsv(scope, csvBody(request), { ...query, requestId: request.id });
  }
}
