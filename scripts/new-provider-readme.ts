/**
 * The scaffold's `plugins/<id>/README.md` (issue 29): what the generated provider does as written,
 * its settings, and the list of what to fill in to make it speak a real provider's API.
 */
import type { ProviderPlan } from './new-provider-plan.js';

/** How the capability is priced, in words, and what the run must report for it. */
function priceText(p: ProviderPlan): string {
  const d = p.capability.cost.describe as { kind: string; credits?: number; unit?: string; per?: number; note?: string; perMb?: number };
  if (d.kind === 'flat') return `a flat ${d.credits} credits per successful call; nothing to report.`;
  if (d.kind === 'per_unit')
    return `${d.note ?? `${d.credits} credits per started ${d.per} ${d.unit}`}. The run reports the \`${d.unit}\` the provider used (\`ctx.usage.add('${d.unit}', n)\`): read the real figure from the provider's answer.`;
  if (d.kind === 'per_output_mb') return `${d.credits} credits per started ${d.perMb} MB of output; report \`output_bytes\` when the output is a file.`;
  return `${d.note ?? 'a rule of its own'}; see the capability's entry in \`docs/capabilities.md\` for the units it reads.`;
}

/** `plugins/<id>/README.md`. */
export function readmeFile(p: ProviderPlan): string {
  const cap = p.capability;
  const list = (names: string[]) => (names.length ? names.map((n) => `\`${n}\``).join(', ') : 'none');
  const optional = p.optionalInputs.length
    ? p.optionalInputs.map((o) => `   | \`${o.name}\` | ${o.description.replace(/\|/g, '\\|').replace(/\n/g, ' ')} |`).join('\n')
    : '   | — | the capability has no optional fields |';
  return `# ${p.id} — serves \`${cap.id}\`

Written by \`npm run new-provider -- ${p.id} --capability ${cap.id}\`.
As generated it runs against its fake and passes its test; it speaks a placeholder contract, not a real provider's API. The
capability's schemas and price are in [\`docs/capabilities.md\`](../../docs/capabilities.md#${cap.id}).

| File | What it holds |
|---|---|
| \`index.ts\` | the plugin: settings, the endpoint \`${p.id}.${p.operation}\`, its mappings to \`${cap.id}\` |
| \`client.ts\` | the one upstream call, through \`providerRequest\` (errors become the catalogue's) |
| \`fake.ts\` | a loopback fake of the upstream on the fake kit (\`core/testing\`) |
| \`${p.id}.test.ts\` | the capability through the real executor against the fake, and the provider fault suite |

## What it needs

| Variable | Default | Meaning |
|---|---|---|
| \`${p.env.apiKey}\` | — (required) | API key (Bearer). Without it: \`Service not configured. Please contact support.\` |
| \`${p.env.baseUrl}\` | \`https://api.${p.id.replace(/_/g, '-')}.example\` | API base URL. |
| \`${p.env.timeoutMs}\` | \`30000\` | Time allowed for one call, ms. |

## What to fill in

1. **The real contract** in \`client.ts\`: path and method (now \`POST ${p.upstreamPath}\`), the body
   the provider expects, how the key travels (\`auth\` of \`providerRequest\`: header, query
   parameter or basic), and how its answer is read (now \`{ data${p.unit ? ', units' : ''} }\`). A provider error
   the standard mapping gets wrong goes in \`mapError\`.
2. **The fake** in \`fake.ts\`, to the same contract: its route, \`auth\` (how it checks the key),
   \`error\` (the provider's error body), and a recorded answer taken from the provider's documentation.
3. **The settings** in \`index.ts\`: the real default base URL, and any setting the provider needs.
4. **The mappings** in \`index.ts\`: the endpoint takes the capability's required fields
   (${list(p.inputFields)}) and answers its output's required fields
   (${list(p.outputFields)}).
   Add the optional fields the provider supports to \`Input\` and to \`mapInput\`, and rename in
   \`run\` where the provider's names differ:

   | Optional field of \`${cap.id}\` | Meaning |
   |---|---|
${optional}

5. **The price**: ${priceText(p)}
6. **The tests** in \`${p.id}.test.ts\`: keep the fault suite call; add tests for what this provider
   does differently (its own 400s, paging, empty results).

## Try it

\`\`\`sh
node --no-node-snapshot --import tsx --test plugins/${p.id}/${p.id}.test.ts
\`\`\`

The scaffold added the plugin to \`plugins.config.ts\`. To try it first in a capability's chain, put
\`'${p.id}'\` in \`providerOrder.${cap.id}\` there.
`;
}
