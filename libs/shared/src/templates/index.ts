export * from './engine';
export * from './variables';
