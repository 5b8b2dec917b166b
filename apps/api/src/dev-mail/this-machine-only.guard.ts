import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { BlockList, isIP } from 'node:net';
import { ApiError } from '../common/api-error';

/** 127.0.0.0/8 and ::1; BlockList matches IPv4 mapped in IPv6 (::ffff:127.0.0.1) by its IPv4 rule. */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

export function isLoopback(address: string | undefined): boolean {
  const version = address ? isIP(address) : 0;
  return version !== 0 && LOOPBACK.check(address!, version === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The development inbox holds every mail's links and codes: it answers only a client on this machine,
 * anyone else 404 as for a path that does not exist, so a deployment that forgot NODE_ENV=production does
 * not publish it. The client is request.ip, not the socket's address: a proxy on this machine connects
 * from 127.0.0.1 for everyone, and request.ip is the address it forwarded when TRUST_PROXY trusts it.
 */
@Injectable()
export class ThisMachineOnlyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (!isLoopback(context.switchToHttp().getRequest<FastifyRequest>().ip)) throw new ApiError('not_found', 'No such resource.');
    return true;
  }
}
