import { Controller, Get, Header, Headers, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { translator } from '@app/shared';
import { browserLanguage } from '../common/html';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { askPage, dataPage, deleteAskPage, deletedPage, linkSentPage } from './pages';
import { PersonalDataService } from './personal-data.service';

const HTML = 'text/html; charset=utf-8';

/**
 * A person's own data, as hosted pages. GET only shows (a mail scanner that opens the link changes
 * nothing); the deletion is asked first on its own page, whose button alone deletes.
 */
@Controller()
export class PersonalDataController {
  constructor(private readonly personalData: PersonalDataService) {}

  @Get('w/:key/my-data')
  @Header('Content-Type', HTML)
  async askForm(@Param('key') key: string, @Headers('accept-language') accepted?: string): Promise<string> {
    const { product } = await this.personalData.productOf(key);
    return askPage(browserLanguage(product, accepted), product.name, key);
  }

  @Post('w/:key/my-data')
  async ask(@Param('key') key: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const body = request.body as { email?: unknown } | null;
    await this.personalData.request(key, body?.email, request.ip, request.id);
    await reply.redirect(`/w/${encodeURIComponent(key)}/my-data/sent`, 303);
  }

  @Get('w/:key/my-data/sent')
  @Header('Content-Type', HTML)
  async sent(@Param('key') key: string, @Headers('accept-language') accepted?: string): Promise<string> {
    const { product } = await this.personalData.productOf(key);
    return linkSentPage(browserLanguage(product, accepted), product.name);
  }

  @Get('my-data/:token')
  @Header('Content-Type', HTML)
  @Header('Cache-Control', 'no-store')
  async show(@Param('token') token: string): Promise<string> {
    const { linked, data } = await this.personalData.export(token);
    return dataPage(translator(linked.entry.locale), token, linked.product.name, data.entry as Parameters<typeof dataPage>[3]);
  }

  @Get('my-data/:token/export')
  @Header('Cache-Control', 'no-store')
  async download(@Param('token') token: string, @Res() reply: FastifyReply): Promise<void> {
    const { data } = await this.personalData.export(token, true);
    await reply
      .header('Content-Type', 'application/json; charset=utf-8')
      .header('Content-Disposition', 'attachment; filename="my-waitlist-data.json"')
      .send(JSON.stringify(data, null, 2));
  }

  @Get('my-data/:token/delete')
  @Header('Content-Type', HTML)
  @Header('Cache-Control', 'no-store')
  async askDelete(@Param('token') token: string): Promise<string> {
    const { entry, product } = await this.personalData.entryOf(token);
    return deleteAskPage(translator(entry.locale), token, product.name);
  }

  @Post('my-data/:token/delete')
  @HttpCode(200)
  @Header('Content-Type', HTML)
  async delete(@Param('token') token: string): Promise<string> {
    const { productName, locale } = await this.personalData.delete(token);
    return deletedPage(translator(locale), productName);
  }
}
