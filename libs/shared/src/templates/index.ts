export * from './engine';
export * from './footer';
export * from './starters';
export * from './variables';
