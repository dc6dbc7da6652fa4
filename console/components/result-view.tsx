/**
 * A call's result: markdown rendered (sanitised), images and screenshots inline, PDFs as links,
 * and the whole answer as a JSON tree.
 */
import type { VNode } from 'preact';
import { Markdown } from './markdown.js';
import { JsonTree } from './json-tree.js';

const IMAGE_URL = /\.(png|jpe?g|webp|gif)(\?|$)/i;
const PDF_URL = /\.pdf(\?|$)/i;

function sameOrigin(url: string): boolean {
  try {
    return new URL(url, location.href).origin === location.origin;
  } catch {
    return false;
  }
}

function richParts(data: unknown, path: string, parts: VNode[], depth: number): void {
  if (!data || typeof data !== 'object' || depth > 2 || parts.length > 12) return;
  const obj = data as Record<string, unknown>;
  const isMarkdownDoc = obj.format === 'markdown';
  for (const [k, v] of Object.entries(obj)) {
    const where = path ? `${path}.${k}` : k;
    if (typeof v === 'string') {
      if (v.startsWith('data:image/')) parts.push(<figure key={where} class="shot"><img src={v} alt={`Image from ${where}`} /><figcaption>{where}</figcaption></figure>);
      else if (/^https?:\/\//.test(v) && (IMAGE_URL.test(v) || /screenshot|image/i.test(k)) && !PDF_URL.test(v)) {
        parts.push(
          sameOrigin(v)
            ? <figure key={where} class="shot"><img src={v} alt={`Image from ${where}`} /><figcaption>{where}</figcaption></figure>
            : <p key={where}><a href={v} target="_blank" rel="noopener noreferrer">Open image ({where})</a></p>,
        );
      } else if (/^https?:\/\//.test(v) && PDF_URL.test(v)) parts.push(<p key={where}><a href={v} target="_blank" rel="noopener noreferrer">Open PDF ({where})</a></p>);
      else if ((k === 'markdown' || (isMarkdownDoc && k === 'content') || k === 'answer') && v.length > 0) {
        parts.push(<section key={where} class="rendered"><h3>Rendered {where}</h3><Markdown text={v} /></section>);
      }
    } else if (v && typeof v === 'object') richParts(v, where, parts, depth + 1);
  }
}

/** Renders one answer's data. */
export function ResultView(props: { data: unknown }) {
  const parts: VNode[] = [];
  richParts(props.data, '', parts, 0);
  return (
    <div class="result">
      {parts}
      <h3>JSON</h3>
      <div class="json"><JsonTree value={props.data} /></div>
    </div>
  );
}
