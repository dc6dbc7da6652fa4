/** A new secret, shown this once, with a copy button. */
import { useState } from 'preact/hooks';

/** Shows `secret` until dismissed; it is kept nowhere else. */
export function SecretOnce(props: { secret: string; title: string; onDone: () => void }) {
  const [copied, setCopied] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.secret);
      setCopied('Copied to the clipboard.');
    } catch {
      (document.getElementById('secret-value') as HTMLInputElement | null)?.select();
      setCopied('Select and copy it by hand (the clipboard is not available here).');
    }
  };
  return (
    <section class="secret" aria-labelledby="secret-title">
      <h2 id="secret-title">{props.title}</h2>
      <p>This secret is shown once. Copy it now: it cannot be shown again.</p>
      <label for="secret-value">Secret</label>
      <input id="secret-value" class="mono" readOnly value={props.secret} />
      <div class="row">
        <button type="button" onClick={copy}>Copy</button>
        <button type="button" onClick={props.onDone}>Done</button>
      </div>
      {copied && <p role="status">{copied}</p>}
    </section>
  );
}
