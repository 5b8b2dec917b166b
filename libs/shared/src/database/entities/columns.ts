import { ValueTransformer } from 'typeorm';

/** bigint columns come back from pg as strings; every number we keep in them fits a JS number. */
export const bigintNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};
