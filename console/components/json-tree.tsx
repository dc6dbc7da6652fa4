/** JSON as a collapsible tree; every value is rendered as text. */
import type { ComponentChildren } from 'preact';

function Leaf(props: { value: unknown }) {
  const v = props.value;
  const cls = v === null ? 'j-null' : typeof v === 'string' ? 'j-str' : typeof v === 'number' ? 'j-num' : 'j-bool';
  return <span class={cls}>{typeof v === 'string' ? JSON.stringify(v.length > 2000 ? v.slice(0, 2000) + '…' : v) : String(v)}</span>;
}

/** One node: objects and arrays open to the given depth. */
export function JsonTree(props: { value: unknown; name?: ComponentChildren; depth?: number }) {
  const { value } = props;
  const depth = props.depth ?? 0;
  if (value === null || typeof value !== 'object') {
    return (
      <div class="j-row">
        {props.name !== undefined && <span class="j-key">{props.name}: </span>}
        <Leaf value={value} />
      </div>
    );
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value as Record<string, unknown>);
  return (
    <details class="j-node" open={depth < 2}>
      <summary>
        {props.name !== undefined && <span class="j-key">{props.name}: </span>}
        {Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`}
      </summary>
      <div class="j-children">
        {entries.slice(0, 500).map(([k, v]) => <JsonTree key={k} name={k} value={v} depth={depth + 1} />)}
        {entries.length > 500 && <div class="j-row">… {entries.length - 500} more</div>}
      </div>
    </details>
  );
}
