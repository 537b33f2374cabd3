/**
 * The wire contract between the extension's client and the service, in one import: configuration,
 * error codes, HTTP paths and bodies, messages, parsing.
 */
export * from './config';
export * from './errors';
export * from './http';
export * from './messages';
export * from './parse';
export * from './teams';
