export * from './config';
export * from './errors';
export * from './http';
export * from './messages';
export * from './parse';
export * from './teams';
