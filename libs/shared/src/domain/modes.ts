export const MODES = ['live', 'test'] as const;
export type Mode = (typeof MODES)[number];
