/**
 * Bookmarks of merged PDFs (spec §4.6: page order preserved): every input's outline follows the
 * previous input's at the top level, each destination pointing at its page in the merged file.
 */
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFObjectCopier, PDFRef, PDFString, type PDFObject } from 'pdf-lib';

/** The copier's memo of copied references (private in pdf-lib, needed to redirect a reference). */
export function memoOf(copier: PDFObjectCopier): Map<PDFRef, PDFRef> {
  return (copier as unknown as { traversedObjects: Map<PDFRef, PDFRef> }).traversedObjects;
}

/** Pairs of a name tree (`Names` / `Kids`), keyed by the decoded name. */
function nameTree(node: PDFDict | undefined, acc = new Map<string, PDFObject>(), depth = 0): Map<string, PDFObject> {
  if (!node || depth > 32) return acc;
  const names = node.lookupMaybe(PDFName.of('Names'), PDFArray);
  for (let i = 0; names && i + 1 < names.size(); i += 2) {
    const k = names.lookup(i);
    if (k instanceof PDFString || k instanceof PDFHexString) acc.set(k.decodeText(), names.get(i + 1));
  }
  const kids = node.lookupMaybe(PDFName.of('Kids'), PDFArray);
  for (let i = 0; kids && i < kids.size(); i++) nameTree(kids.lookupMaybe(i, PDFDict), acc, depth + 1);
  return acc;
}

/**
 * Carries every input's bookmarks (document outline) into the merged file, one input after the
 * other at the top level. Named destinations are turned into explicit ones first, since the
 * inputs' name dictionaries are not merged.
 */
export class OutlineMerger {
  private readonly rootRef: PDFRef;
  private first: PDFRef | undefined;
  private last: PDFRef | undefined;
  private count = 0;

  constructor(private readonly out: PDFDocument) {
    this.rootRef = out.context.nextRef();
  }

  /** Call after `copier` copied `src`'s pages by reference. */
  add(src: PDFDocument, copier: PDFObjectCopier): void {
    const srcRootRef = src.catalog.get(PDFName.of('Outlines'));
    const srcRoot = src.catalog.lookupMaybe(PDFName.of('Outlines'), PDFDict);
    const firstRef = srcRoot?.get(PDFName.of('First'));
    const lastRef = srcRoot?.get(PDFName.of('Last'));
    if (!(srcRootRef instanceof PDFRef) || !(firstRef instanceof PDFRef) || !(lastRef instanceof PDFRef)) return;
    this.explicitDestinations(src, firstRef);
    // Top-level items' /Parent now names the merged outline root.
    memoOf(copier).set(srcRootRef, this.rootRef);
    const first = copier.copy(firstRef) as PDFRef;
    const last = copier.copy(lastRef) as PDFRef;
    const ctx = this.out.context;
    if (this.last) {
      ctx.lookup(this.last, PDFDict).set(PDFName.of('Next'), first);
      ctx.lookup(first, PDFDict).set(PDFName.of('Prev'), this.last);
    }
    this.first ??= first;
    this.last = last;
    this.count += Math.abs(srcRoot!.lookupMaybe(PDFName.of('Count'), PDFNumber)?.asNumber() ?? 0);
  }

  /** Writes the merged outline root, if any input had bookmarks. */
  finish(): void {
    if (!this.first || !this.last) return;
    const ctx = this.out.context;
    ctx.assign(this.rootRef, ctx.obj({ Type: 'Outlines', First: this.first, Last: this.last, Count: this.count }));
    this.out.catalog.set(PDFName.of('Outlines'), this.rootRef);
  }

  /** Rewrites named destinations of the items from `firstRef` on (depth first) as explicit ones. */
  private explicitDestinations(src: PDFDocument, firstRef: PDFRef): void {
    const oldStyle = src.catalog.lookupMaybe(PDFName.of('Dests'), PDFDict);
    let tree: Map<string, PDFObject> | undefined;
    const resolve = (name: PDFObject): PDFObject | undefined => {
      let target: PDFObject | undefined;
      if (name instanceof PDFName) target = oldStyle?.get(name);
      else if (name instanceof PDFString || name instanceof PDFHexString) {
        tree ??= nameTree(src.catalog.lookupMaybe(PDFName.of('Names'), PDFDict)?.lookupMaybe(PDFName.of('Dests'), PDFDict));
        target = tree.get(name.decodeText());
      } else return name;
      const value = target instanceof PDFRef ? src.context.lookup(target) : target;
      // A named destination is an array, or a dictionary holding it under /D.
      return value instanceof PDFDict ? value.get(PDFName.of('D')) : value;
    };
    const seen = new Set<PDFRef>();
    const stack: PDFRef[] = [firstRef];
    while (stack.length > 0) {
      const ref = stack.pop()!;
      if (seen.has(ref) || seen.size > 100_000) continue;
      seen.add(ref);
      const item = src.context.lookupMaybe(ref, PDFDict);
      if (!item) continue;
      const dest = item.get(PDFName.of('Dest'));
      if (dest) {
        const explicit = resolve(dest);
        if (explicit) item.set(PDFName.of('Dest'), explicit);
        else item.delete(PDFName.of('Dest'));
      }
      const action = item.lookupMaybe(PDFName.of('A'), PDFDict);
      if (action?.get(PDFName.of('S')) === PDFName.of('GoTo')) {
        const d = action.get(PDFName.of('D'));
        const explicit = d ? resolve(d) : undefined;
        if (explicit) action.set(PDFName.of('D'), explicit);
        else item.delete(PDFName.of('A'));
      }
      for (const link of ['First', 'Next']) {
        const next = item.get(PDFName.of(link));
        if (next instanceof PDFRef) stack.push(next);
      }
    }
  }
}
