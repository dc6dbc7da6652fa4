/**
 * Fastify's default schema compilers, loaded the first time a route needs one instead of as each
 * app is created. Fastify requires Ajv (validation) and fast-json-stringify (response
 * serialisation) in its constructor, about 60 ms of CPU each in a fresh process; every route
 * here validates its body with its own `validatorCompiler` and declares no response schema, so
 * a start never needs them. A route that does gets the same compilers, built the way Fastify
 * builds them (one selector per app, which caches compilers by their shared schemas).
 */
import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

/** Fastify's own dependencies, resolved from where Fastify is installed. */
const fastifyRequire = createRequire(createRequire(import.meta.url).resolve('fastify'));

type Compilers = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type Factory = (externalSchemas: unknown, options: unknown) => unknown;

/** The `schemaController` option of one app. */
export function lazySchemaCompilers(): FastifyServerOptions['schemaController'] {
  let validator: Factory | undefined;
  let serializer: Factory | undefined;
  const compilersFactory = {
    buildValidator: (schemas: unknown, options: unknown) => (validator ??= (fastifyRequire('@fastify/ajv-compiler') as () => Factory)())(schemas, options),
    buildSerializer: (schemas: unknown, options: unknown) => (serializer ??= (fastifyRequire('@fastify/fast-json-stringify-compiler') as () => Factory)())(schemas, options),
  };
  return { compilersFactory: compilersFactory as unknown as Compilers };
}
