import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';

/**
 * A route that reads a larger body than the api's 64 KiB (the template editor's form): the bytes it
 * reads, in its Fastify config, which registerBodyLimits makes its body limit. A body over it is
 * refused as every other body over its limit is.
 */
export const BodyLimit = (bytes: number) => RouteConfig({ bodyLimit: bytes });

/** Gives each route declared with BodyLimit its own limit; registered before the routes are. */
export function registerBodyLimits(fastify: FastifyInstance): void {
  fastify.addHook('onRoute', (route) => {
    const bytes = (route.config as { bodyLimit?: unknown } | undefined)?.bodyLimit;
    if (typeof bytes === 'number') route.bodyLimit = bytes;
  });
}
