/**
 * Issue 22, low: `/docs` (Swagger UI) was served with no Content-Security-Policy, so a script
 * injected into the page (a crafted document, a compromised asset path) would run and could read
 * the API key Swagger UI keeps in sessionStorage. The page now runs no inline script and carries
 * a strict policy: scripts and styles from this server only, no 'unsafe-inline', no eval, no
 * framing. (test/api/browser_test.ts loads it in Chromium and fails on any violation.)
 */
import assert from "node:assert/strict";
import * as h from "./_helpers.ts";

/** The directives of a Content-Security-Policy header: name → sources. */
function directives(header: string): Map<string, string[]> {
  return new Map(
    header.split(";").map((part) => part.trim().split(/\s+/)).filter((words) => words[0] !== "")
      .map(([name, ...sources]) => [name.toLowerCase(), sources]),
  );
}

Deno.test("docs csp: /docs carries a strict policy and runs no inline script", async () => {
  const t = await h.testApp({}, false);
  try {
    const page = await t.app.request("/docs");
    assert.equal(page.status, 200);
    const header = page.headers.get("content-security-policy");
    assert.ok(header, "GET /docs has no Content-Security-Policy");
    const csp = directives(header);
    const scripts = csp.get("script-src") ?? csp.get("default-src");
    assert.ok(scripts, `no script-src nor default-src in ${header}`);
    assert.deepEqual(scripts, ["'self'"], "scripts from this server only");
    const styles = csp.get("style-src") ?? csp.get("default-src")!;
    assert.ok(!styles.includes("'unsafe-inline'"), "no inline styles");
    assert.deepEqual(csp.get("default-src"), ["'none'"]);
    assert.deepEqual(csp.get("object-src"), ["'none'"]);
    assert.deepEqual(csp.get("base-uri"), ["'none'"]);
    assert.deepEqual(csp.get("frame-ancestors"), ["'none'"]);
    assert.ok(!header.includes("unsafe-eval") && !header.includes("*"), header);

    // What the policy allows is all the page needs: no inline script or handler, and each
    // script or stylesheet is this server's own file.
    const html = await page.text();
    const tags = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
    assert.ok(tags.length > 0);
    for (const [, attributes, body] of tags) {
      assert.match(attributes, /\bsrc="\/[^/"][^"]*"/, "every script is a file of this server");
      assert.equal(body.trim(), "", "no inline script");
    }
    assert.doesNotMatch(html, /\son[a-z]+\s*=/i, "no inline event handler");
    assert.doesNotMatch(html, /<style\b|\sstyle=/i, "no inline style");
    for (const [, url] of html.matchAll(/(?:src|href)="([^"]+)"/g)) {
      const response = await t.app.request(url);
      assert.equal(response.status, 200, url);
      await response.body?.cancel();
    }
  } finally {
    await t.close();
  }
});
