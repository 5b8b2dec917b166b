import { Injectable } from '@nestjs/common';

/** The one source of "now", so that tests can move time; timestamps are kept to the millisecond. */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}
