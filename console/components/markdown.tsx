/**
 * Markdown rendered safely. Raw HTML inside the markdown is shown as text, never parsed: even an
 * inert parse of `<img onerror=…>` makes Chromium report a CSP violation, and the page must stay
 * silent on hostile content. Images become their alt text (other sites' images are not loaded);
 * DOMPurify then keeps only inert markup of what marked produced, and links open in a new tab
 * without a referrer, so scraped content and model output can show but never act.
 */
import { Marked, type Tokens } from 'marked';
import DOMPurify from 'dompurify';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const marked = new Marked({
  gfm: true,
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(token.text);
    },
    image(token: Tokens.Image) {
      return escapeHtml(token.text ? `[image: ${token.text}]` : '[image]');
    },
  },
});

const purify = DOMPurify();
purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    const href = node.getAttribute('href') ?? '';
    if (!/^https?:\/\//i.test(href)) node.removeAttribute('href');
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer nofollow');
  }
});

/** Sanitised HTML of a markdown text. */
export function markdownHtml(md: string): string {
  const html = marked.parse(md, { async: false }) as string;
  return purify.sanitize(html, {
    FORBID_TAGS: ['img', 'picture', 'source', 'video', 'audio', 'iframe', 'style', 'form', 'input', 'button', 'svg', 'math'],
    FORBID_ATTR: ['style', 'id', 'class'],
  });
}

/** A block of rendered markdown. */
export function Markdown(props: { text: string; label?: string }) {
  return <div class="markdown" aria-label={props.label} role={props.label ? 'region' : undefined} dangerouslySetInnerHTML={{ __html: markdownHtml(props.text) }} />;
}
