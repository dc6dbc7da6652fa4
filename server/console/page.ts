/**
 * The console's HTML shell and the security headers of every console answer (issue 26 "Safe
 * with hostile data"): a strict Content-Security-Policy with no inline script or style, so
 * markup smuggled into a key name, a usage field or scraped content has nothing to run.
 */
import type { FastifyReply } from 'fastify';

// Images also come as data: URLs (screenshots in a result) and as produced files on this origin.
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'",
].join('; ');

/** Sets the console's security headers on an answer. */
export function securityHeaders(reply: FastifyReply): void {
  reply.header('Content-Security-Policy', CSP);
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('Referrer-Policy', 'no-referrer');
  reply.header('X-Frame-Options', 'DENY');
}

/** The one page every console path answers with; the bundle routes by its path. */
export function pageHtml(adminEnabled: boolean): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Console · Content intelligence API</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/assets/app.css">
<script type="module" src="/console/assets/app.js"></script>
</head>
<body data-admin="${adminEnabled ? 'on' : 'off'}">
<noscript>The console needs JavaScript.</noscript>
<div id="root"></div>
</body>
</html>
`;
}
