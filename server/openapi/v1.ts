/**
 * The direct-lane OpenAPI document (spec §4.1–4.9, `info.version` 1.0.0 per spec §9.3): one
 * operation per row of the v1 mapping table, its body and response the registry schemas of the
 * row's target, its 400 description the target's own spec texts.
 */
import type { Registry } from '../../core/registry/registry.js';
import type { CapabilityDef, EndpointDef } from '../../core/plugin/types.js';
import { MESSAGES, ShuttingDownError } from '../../core/errors.js';
import { LEGACY_ROUTES } from '../legacy-routes.js';
import type { AliasRoute } from '../v1/route-aliases.js';
import { CODE_ERROR, CREDITS_HEADER, REQUEST_SOURCE, SECURITY_SCHEMES, V1_ERROR, headersFor, jsonContent, plain, ref, type Json } from './common.js';
import { describeCost } from '../cost-text.js';

type TargetDef = Pick<CapabilityDef, 'title' | 'summary' | 'input' | 'output' | 'cost' | 'tags' | 'messages' | 'validate'>;

/**
 * The spec's 400 texts a target declares: its per-field `messages`, and what its cross-field
 * `validate` says when none of its fields is given (e.g. `Either keyword, cid, or placeId must be
 * provided`). Validators are pure functions of the input, so asking them costs nothing.
 */
export function specTexts(def: Pick<TargetDef, 'messages' | 'validate'> | undefined): string[] {
  const texts = new Set(Object.values(def?.messages ?? {}));
  try {
    const text = def?.validate?.({} as never);
    if (typeof text === 'string' && text) texts.add(text);
  } catch {
    // A validator that cannot read an empty input has no general text to show.
  }
  return [...texts];
}

function quoted(texts: string[]): string {
  return texts.map((t) => `\`${t}\``).join('; ');
}

/** The error responses of one row, each naming the texts a caller can get. */
function errors(def: TargetDef | undefined, codeExecution: boolean): Json {
  const error = (status: string, description: string) => ({ description, headers: headersFor(status), ...jsonContent(ref('Error')) });
  const own = specTexts(def);
  return {
    '400': error(
      '400',
      `Invalid input. ${own.length ? `This route's spec texts: ${quoted(own)}. ` : ''}Otherwise \`${MESSAGES.invalidJson}\`, \`Content-Type must be application/json.\`, \`Invalid input: '<field>' <what was expected>.\`, or the upstream service's rejection of the input.`,
    ),
    '401': error('401', `\`${MESSAGES.badAuthHeader}\` (no bearer token) or \`${MESSAGES.invalidKey}\` (unknown or inactive key).`),
    '403': error('403', `\`${MESSAGES.insufficientCredits}\` (balance or monthly budget too low) or \`${MESSAGES.providerNotAllowed}\` (the key's policy).`),
    '404': error('404', 'Nothing found (e.g. `No subtitles found …`), or an unknown route.'),
    '413': error('413', 'The body or a fetched input is larger than the documented limit.'),
    '429': error('429', "The key's rate limit is exceeded (see Retry-After), or a bounded work queue is full."),
    '500': codeExecution
      ? { description: 'The code raised, timed out or ran out of memory (`error` is `{ name, value, traceback }`), or a server-side failure with a string `error`.', headers: headersFor('500'), ...jsonContent({ oneOf: [ref('CodeError'), ref('Error')] }) }
      : error('500', `\`${MESSAGES.notConfigured}\`, \`${MESSAGES.providerAuthFailed}\`, an operation failure (\`Failed to …: …\`) or \`${MESSAGES.internal}\``),
    '502': error('502', 'Upstream service unavailable, timed out or returned an invalid structure (`Failed to retrieve …`, `Received invalid data structure from … service.`).'),
    '503': error('503', `\`${MESSAGES.upstreamRateLimited}\` (a provider rate-limited us), or \`${new ShuttingDownError().message}\` (the instance is draining)`),
  };
}

function targetDef(registry: Registry, target: string): { def?: TargetDef; id: string } {
  const [type, id] = target.split(':') as ['capability' | 'endpoint', string];
  const resolved = registry.resolve(type, id);
  const def: CapabilityDef | EndpointDef | undefined = resolved ? (resolved.type === 'capability' ? resolved.capability.def : resolved.endpoint.def) : undefined;
  return { def, id };
}

/** The connection check automation platforms run when a key is saved (issue 14): free. */
const KEY_CONNECTION_OUTPUT: Json = {
  type: 'object',
  description: 'Who the key is.',
  required: ['metadata'],
  additionalProperties: false,
  properties: { metadata: { type: 'object', description: 'The key.', required: ['name'], additionalProperties: false, properties: { name: { type: 'string', description: 'The key\'s name.' } } } },
};
const KEY_CONNECTION: Json = {
  operationId: 'get_key_connection',
  summary: 'Check an API key',
  description: 'Answers the calling key\'s name; costs nothing. Automation platforms call it to test a connection.',
  tags: ['account'],
  security: [{ bearerAuth: [] }],
  responses: {
    '200': { description: 'The key is valid.', headers: headersFor('200'), ...jsonContent(ref('key_connection_output')) },
    '401': { description: 'Missing, invalid or inactive key.', headers: headersFor('401'), ...jsonContent(ref('Error')) },
    '429': { description: 'The key\'s rate limit is exhausted.', headers: headersFor('429'), ...jsonContent(ref('Error')) },
  },
};

/** The direct lane document (spec §4.1–4.9), with the operator's route aliases (V1_ROUTE_ALIASES). */
export function buildV1Document(registry: Registry, aliases: readonly AliasRoute[] = []): Json {
  const paths: Json = {};
  const schemas: Json = { Error: V1_ERROR, CodeError: CODE_ERROR };
  for (const row of [...LEGACY_ROUTES, ...aliases]) {
    const { def, id } = targetDef(registry, row.target);
    const aliasOf = 'aliasOf' in row ? (row as AliasRoute).aliasOf : undefined;
    const input = def ? plain(def.input) : { type: 'object', additionalProperties: true, description: 'Accepted once a provider plugin serves this route.' };
    const name = id.replace(/\./g, '_');
    const inputProps = (input.properties ?? {}) as Json;
    schemas[`${name}_input`] = { ...input, properties: { ...inputProps, requestSource: REQUEST_SOURCE } };
    schemas[`${name}_output`] = def ? plain(def.output) : plain(undefined, 'Served once a provider plugin registers it.');
    const op: Json = {
      operationId: `${row.method.toLowerCase()}_${name}${aliasOf ? `_via_${row.path.slice('/api/v1/'.length).replace(/[^A-Za-z0-9]+/g, '_')}` : ''}`,
      summary: aliasOf ? `${def?.title ?? id} (alias of ${aliasOf})` : (def?.title ?? id),
      description: `${aliasOf ? `Operator alias of \`${aliasOf}\` (V1_ROUTE_ALIASES): the same input, output and price. ` : ''}${def?.summary ?? 'Served once a provider plugin registers it.'}${def ? ' ' + describeCost(def.cost.describe) : ''} Runs \`${row.target}\`.`,
      tags: [def?.tags?.[0] ?? 'other'],
      security: [{ bearerAuth: [] }],
      responses: {
        '200': { description: 'Success: the output of the target.', headers: headersFor('200', CREDITS_HEADER), ...jsonContent(ref(`${name}_output`)) },
        ...errors(def, id.startsWith('run_') && id.endsWith('_code')),
      },
    };
    if (row.method === 'GET') {
      const required = (input.required as string[] | undefined) ?? [];
      op.parameters = [
        ...Object.entries(inputProps).map(([pname, s]) => ({ name: pname, in: 'query', required: required.includes(pname), description: (s as Json).description, schema: s })),
        { name: 'requestSource', in: 'query', required: false, description: REQUEST_SOURCE.description, schema: { type: 'string', maxLength: REQUEST_SOURCE.maxLength } },
      ];
    } else {
      op.requestBody = { required: true, description: `Input of \`${row.target}\`.`, ...jsonContent(ref(`${name}_input`)) };
    }
    const path = (paths[row.path] ??= {}) as Json;
    path[row.method.toLowerCase()] = op;
  }
  paths['/api/v1/key-connection'] = { get: KEY_CONNECTION };
  schemas.key_connection_output = KEY_CONNECTION_OUTPUT;
  return {
    openapi: '3.1.0',
    info: { title: 'Content intelligence API — direct lane', version: '1.0.0', description: 'Fixed routes under /api/v1 (spec §4). Errors are `{ error }` (code execution: `{ error: { name, value, traceback } }`).' },
    servers: [{ url: '/' }],
    paths,
    components: { securitySchemes: SECURITY_SCHEMES, schemas },
    security: [{ bearerAuth: [] }],
  };
}
