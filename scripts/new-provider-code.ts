/**
 * The scaffold's provider code (issue 29): `index.ts` (the plugin: settings, one endpoint serving
 * the capability, its mappings) and `client.ts` (one upstream call through the kit's
 * `providerRequest`). Both import only `core/sdk.ts` and `core/catalogue.ts`.
 */
import { docComment, key, literal, prop, str, type ProviderPlan } from './new-provider-plan.js';

/** `plugins/<id>/index.ts`. */
export function indexFile(p: ProviderPlan): string {
  const cap = p.capability;
  const c = p.exportName;
  const endpointConst = `${p.operation.replace(/_([a-z0-9])/g, (_m, ch: string) => ch.toUpperCase())}Endpoint`;
  const fetcher = `fetch${p.pascal}`;
  const object = (names: string[], from: string) =>
    names.length ? `Type.Object({\n${names.map((f) => `  ${key(f)}: ${from}.properties${prop(f)},`).join('\n')}\n})` : 'Type.Object({})';
  const pick = (names: string[], from: string) => (names.length ? `({ ${names.map((f) => `${key(f)}: ${from}${prop(f)}`).join(', ')} })` : '({})');
  const outputPick = p.outputFields.map((f) => `      ${key(f)}: data${prop(f)},`).join('\n');
  const units = p.unit
    ? `\n    // The price counts ${p.unit}: report the ${p.unit} the provider says it used.\n    ctx.usage.add(${str(p.unit)}, units);`
    : '';
  return `${docComment(`${p.id}: serves the capability \`${cap.id}\` (${cap.title}) through its endpoint \`${p.id}.${p.operation}\`. Written by \`npm run new-provider\`: the endpoint takes the fields the capability requires and answers the fields its output requires; README.md says what to fill in.`)}
import { Type, defineEndpoint, definePlugin, implement, type Static } from '../../core/sdk.js';
import { ${c} } from '../../core/catalogue.js';
import { ${fetcher} } from './client.js';

const config = {
  baseUrl: { type: 'url', description: '${p.id} API base URL.', default: 'https://api.${p.id.replace(/_/g, '-')}.example' },
  apiKey: { type: 'secret', description: '${p.id} API key (sent as a Bearer token).', required: true },
  timeoutMs: { type: 'integer', description: 'Time allowed for one ${p.id} call, ms.', min: 1000, max: 300_000, default: 30_000 },
} as const;

/** The endpoint's input: the fields the capability requires, with the capability's own schemas. */
const Input = ${object(p.inputFields, `${c}.input`)};

/** The endpoint's output: the fields the capability's output requires. */
const Output = ${object(p.outputFields, `${c}.output!`)};

const ${endpointConst} = defineEndpoint({
  operation: '${p.operation}',
  title: ${str(`${p.id}: ${cap.title}`)},
  summary: ${c}.summary,
  tags: ${c}.tags,
  config, // types ctx.config from the declaration above (a default or required setting is present)
  input: Input,
  output: Output,
  cost: ${c}.cost,
  examples: [
    {
      title: 'The required fields',
      input: ${literal(p.endpointInput, '      ')},
    },
  ],
  async run(input, ctx) {
    const { data${p.unit ? ', units' : ''} } = await ${fetcher}<Static<typeof Output>>(ctx, input);
    ctx.setNative(data);${units}
    // The provider's answer → the endpoint's output, field by field: rename here where its names differ.
    return ${p.outputFields.length ? `{\n${outputPick}\n    }` : '{}'};
  },
});

export default definePlugin({
  id: '${p.id}',
  apiVersion: 1,
  title: '${p.id}',
  summary: ${str(`Serves the capability ${cap.id} (${cap.title}) through the ${p.id} API.`)},
  tags: ['provider'],
  config,
  endpoints: [${endpointConst}],
  implements: [
    implement(${c}, ${endpointConst}, {
      // The capability's input → the endpoint's: its required fields (add the optional ones the provider supports).
      mapInput: (${p.inputFields.length ? 'i' : ''}) => ${pick(p.inputFields, 'i')},
      // The endpoint's output → the capability's: the fields its output check requires.
      mapOutput: (${p.outputFields.length ? 'o' : ''}) => ${pick(p.outputFields, 'o')},
    }),
  ],
});
`;
}

/** `plugins/<id>/client.ts`. */
export function clientFile(p: ProviderPlan): string {
  const fetcher = `fetch${p.pascal}`;
  const unitsDoc = p.unit ? ` and the ${p.unit} it used as \`units\`` : '';
  const returns = p.unit ? '{ data: T; units: number }' : '{ data: T }';
  const units = p.unit
    ? `
  // The charge is the usage the provider reports: an answer without it cannot be priced.
  if (!Number.isInteger(answer.units) || (answer.units as number) < 0) throw invalidStructure(ctx, 'no units');
  return { data: answer.data as T, units: answer.units as number };`
    : `
  return { data: answer.data as T };`;
  return `${docComment(`Client of the ${p.id} API. The contract here is a placeholder the scaffold chose so the plugin runs as generated: \`POST {baseUrl}${p.upstreamPath}\` with the endpoint's input as JSON and the key as a Bearer token, answering \`{ data }\` with the output fields${unitsDoc}. Replace the path, body, auth and the reading of the answer with the provider's real contract (see README.md).`)}
import { invalidStructure, providerRequest, type RunContext } from '../../core/sdk.js';

/** The answer of the placeholder contract. */
interface Answer {
  data?: unknown;
  units?: unknown;
}

${docComment(`Asks ${p.id} for \`${p.capability.id}\`. Failures (refused key, rate limit, 5xx, timeouts, a body that is not JSON) become the catalogue's errors inside \`providerRequest\`; output fields that are missing or of the wrong type are refused by the executor's output check with the same 502.`)}
export async function ${fetcher}<T extends object>(ctx: RunContext<any, any>, body: object): Promise<${returns}> {
  const { data: answer } = await providerRequest<Answer>(ctx, { path: '${p.upstreamPath}', method: 'POST', json: body });
  if (!answer || typeof answer.data !== 'object' || answer.data === null) throw invalidStructure(ctx, 'no data object');${units}
}
`;
}
