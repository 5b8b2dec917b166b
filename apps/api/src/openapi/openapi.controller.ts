import { Controller, Get, Header, Inject } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/shared';
import { buildOpenApiDocument, OpenApiDocument } from './document';
import { OPENAPI_JSON_PATH } from './paths';

/** The OpenAPI document, for anyone: it holds no secret, and tools fetch it without a key. */
@Controller()
export class OpenApiController {
  private readonly document: OpenApiDocument;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.document = buildOpenApiDocument(config.PUBLIC_BASE_URL);
  }

  @Get(OPENAPI_JSON_PATH)
  @Header('Cache-Control', 'public, max-age=3600')
  get(): OpenApiDocument {
    return this.document;
  }
}
