/**
 * A form generated from a JSON Schema (the registry's TypeBox schemas as discovery and OpenAPI
 * publish them): required fields, enums as selects, defaults, descriptions, arrays and nested
 * objects. A field whose schema it cannot draw (mixed unions) gets a JSON box of its own.
 */
type Schema = Record<string, any>;

function enumOf(s: Schema): unknown[] | undefined {
  if (Array.isArray(s.enum)) return s.enum;
  const alts = s.anyOf ?? s.oneOf;
  if (Array.isArray(alts) && alts.length > 0 && alts.every((a: Schema) => 'const' in a)) return alts.map((a: Schema) => a.const);
  return undefined;
}

function kindOf(s: Schema): string {
  if (enumOf(s)) return 'enum';
  const t = Array.isArray(s.type) ? s.type.find((x: string) => x !== 'null') : s.type;
  if (t === 'object' && s.properties) return 'object';
  if (t === 'array' && s.items) return 'array';
  if (t === 'string' || t === 'number' || t === 'integer' || t === 'boolean') return t;
  return 'json';
}

/** The starting value of a schema: its defaults, recursively for objects (undefined when none). */
export function initialValue(s: Schema): any {
  if (s.default !== undefined) return structuredClone(s.default);
  if (kindOf(s) === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, sub] of Object.entries<Schema>(s.properties)) {
      const v = initialValue(sub);
      if (v !== undefined) out[k] = v;
    }
    // An object with nothing set is left out, as ObjectFields does once edited: an empty
    // `changeTrackingOptions` or `location` must not reach the API as if the caller had asked for it.
    return Object.keys(out).length ? out : undefined;
  }
  return undefined;
}

const LONG = /code|content|text|html|prompt|markdown|base64|script|body|instructions/i;

interface FieldProps {
  schema: Schema;
  name: string;
  path: string;
  value: any;
  required: boolean;
  onChange: (v: any) => void;
}

function Label(props: { id: string; name: string; required: boolean; schema: Schema }) {
  return (
    <label for={props.id}>
      {props.schema.title && props.schema.title !== props.name ? `${props.name} (${props.schema.title})` : props.name}
      {props.required && <span class="req" aria-hidden="true"> *</span>}
      {props.required && <span class="sr-only"> (required)</span>}
    </label>
  );
}

function Help(props: { id: string; schema: Schema }) {
  return props.schema.description ? <small id={`${props.id}-d`} class="help">{props.schema.description}</small> : null;
}

function JsonField(props: FieldProps & { id: string }) {
  const text = props.value === undefined ? '' : JSON.stringify(props.value, null, 2);
  return (
    <div class="field">
      <Label id={props.id} name={props.name} required={props.required} schema={props.schema} />
      <textarea
        id={props.id}
        rows={3}
        aria-describedby={props.schema.description ? `${props.id}-d` : undefined}
        value={text}
        onChange={(e) => {
          const raw = (e.target as HTMLTextAreaElement).value.trim();
          if (!raw) return props.onChange(undefined);
          try {
            props.onChange(JSON.parse(raw));
          } catch {
            props.onChange(raw);
          }
        }}
      />
      <small class="help">JSON value.</small>
      <Help id={props.id} schema={props.schema} />
    </div>
  );
}

/** One field of any kind. */
export function Field(props: FieldProps) {
  const { schema, name, value, onChange, required } = props;
  const id = `f-${props.path}`;
  const described = schema.description ? `${id}-d` : undefined;
  const kind = kindOf(schema);
  if (kind === 'object') return <ObjectFields {...props} />;
  if (kind === 'array') return <ArrayField {...props} />;
  if (kind === 'json') return <JsonField {...props} id={id} />;
  if (kind === 'boolean') {
    return (
      <div class="field check">
        <input id={id} type="checkbox" checked={value === true} aria-describedby={described} onChange={(e) => onChange((e.target as HTMLInputElement).checked)} />
        <Label id={id} name={name} required={required} schema={schema} />
        <Help id={id} schema={schema} />
      </div>
    );
  }
  let control;
  if (kind === 'enum') {
    const options = enumOf(schema)!;
    control = (
      <select id={id} required={required} aria-describedby={described} value={value === undefined ? '' : JSON.stringify(value)} onChange={(e) => {
        const raw = (e.target as HTMLSelectElement).value;
        onChange(raw === '' ? undefined : JSON.parse(raw));
      }}>
        {!required && <option value="">(not set)</option>}
        {options.map((o) => <option key={String(o)} value={JSON.stringify(o)}>{String(o)}</option>)}
      </select>
    );
  } else if (kind === 'number' || kind === 'integer') {
    control = (
      <input id={id} type="number" required={required} aria-describedby={described} min={schema.minimum} max={schema.maximum} step={kind === 'integer' ? 1 : 'any'}
        value={value ?? ''} onInput={(e) => {
          const raw = (e.target as HTMLInputElement).value;
          onChange(raw === '' ? undefined : Number(raw));
        }} />
    );
  } else if (schema.format !== 'uri' && !/url$/i.test(name) && (LONG.test(name) || (schema.maxLength ?? 0) > 500)) {
    control = <textarea id={id} rows={4} required={required} aria-describedby={described} value={value ?? ''} onInput={(e) => onChange((e.target as HTMLTextAreaElement).value || undefined)} />;
  } else {
    control = <input id={id} type="text" inputMode={schema.format === 'uri' ? 'url' : undefined} required={required} aria-describedby={described} value={value ?? ''} onInput={(e) => onChange((e.target as HTMLInputElement).value || undefined)} />;
  }
  return (
    <div class="field">
      <Label id={id} name={name} required={required} schema={schema} />
      {control}
      <Help id={id} schema={schema} />
    </div>
  );
}

function ObjectFields(props: FieldProps) {
  const req = new Set<string>(props.schema.required ?? []);
  const obj = (props.value ?? {}) as Record<string, unknown>;
  const set = (k: string, v: unknown) => {
    const next = { ...obj };
    if (v === undefined) delete next[k];
    else next[k] = v;
    props.onChange(Object.keys(next).length ? next : props.path === 'input' ? {} : undefined);
  };
  const fields = Object.entries<Schema>(props.schema.properties).map(([k, s]) => (
    <Field key={k} schema={s} name={k} path={`${props.path}-${k}`} value={obj[k]} required={req.has(k)} onChange={(v) => set(k, v)} />
  ));
  if (props.path === 'input') return <div class="fields">{fields}</div>;
  return (
    <fieldset class="nested">
      <legend>{props.name}{props.required ? ' *' : ''}</legend>
      {props.schema.description && <small class="help">{props.schema.description}</small>}
      {fields}
    </fieldset>
  );
}

function ArrayField(props: FieldProps) {
  const list: unknown[] = Array.isArray(props.value) ? props.value : [];
  const items = props.schema.items as Schema;
  const update = (next: unknown[]) => props.onChange(next.length ? next : undefined);
  return (
    <fieldset class="nested">
      <legend>{props.name}{props.required ? ' *' : ''} (list)</legend>
      {props.schema.description && <small class="help">{props.schema.description}</small>}
      {list.map((v, i) => (
        <div class="array-item" key={i}>
          <Field schema={items} name={`${props.name} ${i + 1}`} path={`${props.path}-${i}`} value={v} required={false} onChange={(nv) => update(list.map((x, j) => (j === i ? nv : x)))} />
          <button type="button" class="small" onClick={() => update(list.filter((_, j) => j !== i))}>Remove {props.name} {i + 1}</button>
        </div>
      ))}
      <button type="button" class="small" onClick={() => update([...list, initialValue(items) ?? (kindOf(items) === 'object' ? {} : undefined)])}>Add to {props.name}</button>
    </fieldset>
  );
}

/** The whole input form of an operation. */
export function SchemaForm(props: { schema: Schema; value: Record<string, unknown>; onChange: (v: Record<string, unknown>) => void }) {
  if (kindOf(props.schema) !== 'object') {
    return <JsonField schema={props.schema} name="input" path="input" id="f-input" value={props.value} required onChange={(v) => props.onChange(v ?? {})} />;
  }
  return <Field schema={props.schema} name="input" path="input" value={props.value} required onChange={(v) => props.onChange(v ?? {})} />;
}
