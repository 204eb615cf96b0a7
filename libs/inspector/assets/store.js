import { useEffect, useState } from "preact/hooks";
import { api } from "./api.js";
import { attempt, ErrorNote, html, parseJson } from "./ui.js";

const ns = (text) =>
  text
    .split(/[./]/)
    .map((s) => s.trim())
    .filter(Boolean);

/** The Store pane: namespaces, the items under one, put and delete. */
export function StorePane() {
  const [namespaces, setNamespaces] = useState([]);
  const [prefix, setPrefix] = useState("");
  const [items, setItems] = useState([]);
  const [put, setPut] = useState({ namespace: "", key: "", value: "" });
  const [error, setError] = useState(undefined);
  async function loadNamespaces() {
    const r = await attempt(setError, () => api("/store/namespaces", { method: "POST", body: { limit: 100 } }));
    if (r) setNamespaces(r.namespaces ?? []);
  }
  async function search(event, p = prefix) {
    event?.preventDefault();
    const r = await attempt(setError, () => api("/store/items/search", { method: "POST", body: { namespace_prefix: ns(p), limit: 100 } }));
    if (r) setItems(r.items ?? []);
  }
  useEffect(() => {
    loadNamespaces();
    search();
  }, []);
  async function save(event) {
    event.preventDefault();
    const ok = await attempt(setError, () =>
      api("/store/items", {
        method: "PUT",
        body: { namespace: ns(put.namespace), key: put.key, value: parseJson(put.value, "Value (JSON)", {}) },
      }),
    );
    if (ok !== undefined) {
      await loadNamespaces();
      await search();
    }
  }
  const remove = (item) =>
    attempt(setError, () => api("/store/items", { method: "DELETE", body: { namespace: item.namespace, key: item.key } })).then(() =>
      search(),
    );
  const field = (name) => (e) => setPut({ ...put, [name]: e.currentTarget.value });
  return html`<div class="columns">
    <section aria-labelledby="ns-title">
      <h2 id="ns-title">Namespaces</h2>
      <ul class="plain" aria-label="Namespaces">
        ${namespaces.map((n) => html`<li><button type="button" class="secondary" onClick=${() => (setPrefix(n.join(".")), search(undefined, n.join(".")))}>${n.join(".")}</button></li>`)}
      </ul>
      ${namespaces.length === 0 && html`<p class="note">The store is empty.</p>`}
    </section>
    <div>
      <${ErrorNote} error=${error} />
      <section aria-labelledby="items-title">
        <h2 id="items-title">Items</h2>
        <form onSubmit=${search}>
          <label for="ns-prefix">Namespace prefix</label>
          <input id="ns-prefix" type="text" placeholder="users.alice" value=${prefix} onInput=${(e) => setPrefix(e.currentTarget.value)} />
          <button type="submit">Search items</button>
        </form>
        <table aria-label="Items">
          <thead>
            <tr>
              <th>Namespace</th>
              <th>Key</th>
              <th>Value</th>
              <th>Updated</th>
              <th></th>
            </tr>
          </thead>
          <tbody>
            ${items.map(
              (i) =>
                html`<tr>
                  <td>${i.namespace.join(".")}</td>
                  <td>${i.key}</td>
                  <td><code>${JSON.stringify(i.value)}</code></td>
                  <td>${i.updated_at}</td>
                  <td>
                    <button type="button" class="danger" onClick=${() => remove(i)} aria-label=${`Delete item ${i.key}`}>Delete</button>
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>
      </section>
      <form onSubmit=${save} aria-label="Put an item">
        <h3>Put an item</h3>
        <label for="put-ns">Namespace</label>
        <input id="put-ns" type="text" placeholder="users.alice" value=${put.namespace} onInput=${field("namespace")} />
        <label for="put-key">Key</label>
        <input id="put-key" type="text" value=${put.key} onInput=${field("key")} />
        <label for="put-value">Value (JSON)</label>
        <textarea id="put-value" value=${put.value} onInput=${field("value")}></textarea>
        <button type="submit">Put item</button>
      </form>
    </div>
  </div>`;
}
