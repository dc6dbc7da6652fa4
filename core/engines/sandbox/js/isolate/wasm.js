// @ts-check
/**
 * The asynchronous WebAssembly API inside the isolate (issue 18, item 9). V8 compiles for
 * `WebAssembly.compile` / `instantiate` on background threads and settles their promises from a
 * task the embedder runs; isolated-vm runs such tasks only when the isolate is next entered, so
 * `await WebAssembly.instantiate(bytes)` with no timer or fetch pending never settled (the run
 * then ended as an unsettled top-level await). The asynchronous functions are therefore built on
 * the synchronous constructors, which compile at once within the run's time limit: the same
 * results (`{ module, instance }`, or an `Instance` for a `Module`) and the same errors
 * (`CompileError`, `LinkError`, `TypeError`), as promises. Composed after web.js (its `Response`).
 */
const wasmApi = G.WebAssembly;
if (wasmApi) {
  const WasmModule = wasmApi.Module, WasmInstance = wasmApi.Instance;
  /** Runs `fn` now and hands its result or error over as a promise. */
  const settled = (fn) => new _Promise((resolve) => resolve(fn()));
  /** The bytes of a `Response` (or a promise of one) served as `application/wasm`. */
  const wasmBytes = (source, api) =>
    _Promise.resolve(source).then((res) => {
      if (!(res instanceof Response)) throw new _TypeError('WebAssembly.' + api + '(): Argument 0 must be a Response or a promise of one');
      const type = _String(res.headers.get('content-type') || '').split(';')[0].trim().toLowerCase();
      if (type !== 'application/wasm') throw new _TypeError('WebAssembly.' + api + "(): Incorrect response MIME type. Expected 'application/wasm'.");
      return res.arrayBuffer();
    });
  const instantiate = (source, imports) =>
    settled(() => {
      if (source instanceof WasmModule) return new WasmInstance(source, imports);
      const module = new WasmModule(source);
      return { module, instance: new WasmInstance(module, imports) };
    });
  const replacements = {
    compile: (bytes) => settled(() => new WasmModule(bytes)),
    instantiate,
    compileStreaming: (source) => wasmBytes(source, 'compileStreaming').then((bytes) => new WasmModule(bytes)),
    instantiateStreaming: (source, imports) => wasmBytes(source, 'instantiateStreaming').then((bytes) => instantiate(bytes, imports)),
  };
  for (const name of Object.keys(replacements)) {
    reflectDefine(wasmApi, name, /** @type {PropertyDescriptor} */ ({ __proto__: null, value: replacements[name], writable: true, enumerable: false, configurable: true }));
  }
}
