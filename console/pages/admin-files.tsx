/** Files: the produced files this instance holds, with delete. */
import { useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import { num, Status, useGet, when } from '../components/common.js';

/** The files page. */
export function Files() {
  const list = useGet<{ items: { id: string; contentType: string; size: number; expiresAt: string }[] }>('/admin/files');
  const [msg, setMsg] = useState({ error: '', ok: '' });
  const remove = async (id: string) => {
    const r = await api('DELETE', `/admin/files/${encodeURIComponent(id)}`);
    setMsg(r.ok ? { error: '', ok: `Deleted ${id}.` } : { error: errorText(r), ok: '' });
    list.reload();
  };
  const items = list.data?.items ?? [];
  return (
    <div>
      <Status {...msg} />
      <Status error={list.error} />
      <table>
        <thead><tr><th scope="col">Id</th><th scope="col">Type</th><th scope="col">Size</th><th scope="col">Expires</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
        <tbody>
          {items.map((f) => (
            <tr key={f.id}>
              <td class="mono">{f.id}</td><td>{f.contentType}</td><td>{num(f.size)} bytes</td>
              <td>{new Date(f.expiresAt).getUTCFullYear() > 9000 ? 'never' : when(f.expiresAt)}</td>
              <td><button type="button" class="small" onClick={() => remove(f.id)}>Delete <span class="sr-only">{f.id}</span></button></td>
            </tr>
          ))}
          {items.length === 0 && <tr><td colSpan={5}>No files.</td></tr>}
        </tbody>
      </table>
    </div>
  );
}
