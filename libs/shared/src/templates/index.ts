export * from './engine';
export * from './footer';
export * from './starters';
export * from './variables';
export * from './mail-html';
export * from './values';
