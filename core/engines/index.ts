/**
 * Builds the engines object handed to plugins. Each engine is created on first access, so a
 * deployment that never scrapes never starts Chromium; `close()` stops whatever was started.
 */
import type { Closable, Engines } from './types.js';
import type { EngineOptions } from './options.js';
import { createHttpEngine } from './http/index.js';
import { createFileStore } from './files/index.js';
import { createBrowserEngine } from './browser/index.js';
import { createOfficeEngine } from './office/index.js';
import { createPdfEngine } from './pdf/index.js';
import { createJsSandbox, createPythonSandbox } from './sandbox/index.js';
import { createComputeEngine } from './compute/index.js';
import { createToolEngine } from './tools/index.js';

import { createPageStore } from './page-store/index.js';

type Factories = { [K in keyof Engines]: (opts: EngineOptions) => Engines[K] & Closable };

const FACTORIES: Factories = {
  http: createHttpEngine,
  files: createFileStore,
  browser: createBrowserEngine,
  office: createOfficeEngine,
  pdf: createPdfEngine,
  js: createJsSandbox,
  python: createPythonSandbox,
  compute: createComputeEngine,
  tools: createToolEngine,

  pageStore: createPageStore,
};

/** Engines plus the means to stop them; `started()` lists the engines created so far. */
export interface EngineSet extends Engines, Closable {
  started(): (keyof Engines)[];
}

/** Creates the lazy engine set; `overrides` lets tests substitute an engine. */
export function createEngines(opts: EngineOptions, overrides: Partial<Factories> = {}): EngineSet {
  const made = new Map<keyof Engines, Closable>();
  const get = <K extends keyof Engines>(name: K): Engines[K] => {
    let engine = made.get(name);
    if (!engine) {
      const factory = (overrides[name] ?? FACTORIES[name]) as Factories[K];
      engine = factory(opts) as Closable;
      made.set(name, engine);
    }
    return engine as unknown as Engines[K];
  };
  const set = {
    started: () => [...made.keys()],
    async close() {
      // Close in reverse creation order: files last, since other engines may still write to it.
      const engines = [...made.values()].reverse();
      made.clear();
      await Promise.allSettled(engines.map((e) => e.close()));
    },
  } as EngineSet;
  for (const name of Object.keys(FACTORIES) as (keyof Engines)[]) {
    Object.defineProperty(set, name, { get: () => get(name), enumerable: true });
  }
  return set;
}
