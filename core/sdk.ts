/**
 * The only module plugin authors import (design: house style 2). Everything a plugin needs —
 * define helpers, cost rules, catalogue errors, TypeBox, context types, the provider HTTP
 * helper, and the capability catalogue's shared schemas and helpers — comes from here.
 */
export * from './sdk-base.js';
export * from './capabilities/index.js';
