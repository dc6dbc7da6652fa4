/**
 * Page-level tags for a PDF that has none (spec §4.6 `pdfua`: "attempt PDF/UA compliance";
 * issue 19 item 5). Nothing can recover the headings, lists, tables or figure descriptions of an
 * untagged file, but leaving its pages out of a tagged merge is worse: assistive technology
 * trusts the structure tree and skips untagged content. So each page's content becomes one
 * marked-content sequence (MCID 0) owned by a `P` element, in content-stream order, and each link
 * annotation a `Link` element with its object reference and a description.
 */
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFNumber, PDFRef, PDFString, type PDFContext, type PDFObject, type PDFPageLeaf } from 'pdf-lib';

/** The parent tree being built: key → the element (annotation) or MCID-indexed elements (page). */
export type ParentEntries = [number, PDFObject][];

/** A description for a link annotation that has none: its URI when it has one. */
function linkText(annot: PDFDict): PDFHexString {
  const uri = annot.lookupMaybe(PDFName.of('A'), PDFDict)?.lookup(PDFName.of('URI'));
  const text = uri instanceof PDFString || uri instanceof PDFHexString ? uri.decodeText() : '';
  return PDFHexString.fromText(text || 'Link');
}

/**
 * Tags one untagged page under `parentRef`: appends its elements to `kids` and their parent-tree
 * entries to `parents` from `nextKey` on; returns the next free key. The page's own content
 * streams are left untouched (they may be shared): the marked-content operators are two streams
 * of their own around them.
 */
export function tagPage(ctx: PDFContext, leaf: PDFPageLeaf, pageRef: PDFRef, parentRef: PDFRef, kids: PDFObject[], parents: ParentEntries, nextKey: number): number {
  let key = nextKey;
  // Contents: a stream, an array of streams, or a reference to either.
  const contents = leaf.get(PDFName.of('Contents'));
  const resolved = contents instanceof PDFRef ? ctx.lookup(contents) : contents;
  const streams = resolved instanceof PDFArray ? resolved.asArray() : contents ? [contents] : [];
  if (streams.length > 0) {
    const begin = ctx.register(ctx.stream('/P <</MCID 0>> BDC\n'));
    const end = ctx.register(ctx.stream('\nEMC\n'));
    leaf.set(PDFName.of('Contents'), ctx.obj([begin, ...streams, end]));
    const p = ctx.register(ctx.obj({ Type: 'StructElem', S: 'P', P: parentRef, Pg: pageRef, K: 0 }));
    leaf.set(PDFName.of('StructParents'), PDFNumber.of(key));
    parents.push([key++, ctx.obj([p])]);
    kids.push(p);
  }
  const annots = leaf.lookupMaybe(PDFName.of('Annots'), PDFArray);
  for (let i = 0; annots && i < annots.size(); i++) {
    const entry = annots.get(i);
    const annot = entry instanceof PDFRef ? ctx.lookupMaybe(entry, PDFDict) : entry instanceof PDFDict ? entry : undefined;
    if (annot?.get(PDFName.of('Subtype')) !== PDFName.of('Link')) continue;
    // An object reference needs an indirect object: a direct annotation becomes one.
    const ref = entry instanceof PDFRef ? entry : ctx.register(annot);
    annots.set(i, ref);
    const link = ctx.register(ctx.obj({ Type: 'StructElem', S: 'Link', P: parentRef, Pg: pageRef, K: ctx.obj({ Type: 'OBJR', Obj: ref, Pg: pageRef }) }));
    annot.set(PDFName.of('StructParent'), PDFNumber.of(key));
    if (!annot.has(PDFName.of('Contents'))) annot.set(PDFName.of('Contents'), linkText(annot));
    parents.push([key++, link]);
    kids.push(link);
  }
  return key;
}
