"""The client's scripts and style sheets are served without comments (server/compact.py), and
read the same: every script's tokens, and where its line breaks fall, are checked with an
independent tokenizer (acorn, installed by scripts/test.sh beside axe-core)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from canasta.server.compact import strip_css, strip_js

from .support import client

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "src" / "canasta" / "web" / "static"
SCRIPTS = sorted((STATIC / "js").glob("*.js"))
ACORN = ROOT / ".node" / "node_modules" / "acorn"

TOKENS = """
const acorn = require("acorn");  // found through NODE_PATH
const fs = require("fs");
const out = {};
for (const f of process.argv.slice(2)) {
  const text = fs.readFileSync(f, "utf8");
  const toks = [];
  let end = 0;
  for (const t of acorn.tokenizer(text, { ecmaVersion: "latest", sourceType: "module" })) {
    // the token, and whether a line break comes before it (automatic semicolons depend on it)
    // (a regular expression's value is an object: compared by its pattern and flags)
    const value = t.value === undefined ? null : t.type.label === "regexp" ? `/${t.value.pattern}/${t.value.flags}` : String(t.value);
    toks.push([t.type.label, value, toks.length > 0 && /[\\n\\r\\u2028\\u2029]/.test(text.slice(end, t.start))]);
    end = t.end;
  }
  out[f] = toks;
}
process.stdout.write(JSON.stringify(out));
"""


def test_comments_and_indentation_go_and_everything_else_stays() -> None:
    src = """// a module
import { x } from "./x.js";  /* the one import */
/**
 * A doc comment.
 */
export function f(a, b) {
    const s = "not // a comment", t = 'nor /* this */';
    const u = `a ${b.map((c) => `<i class="${c}">  // kept  </i>`).join("")} /* kept */`;
    const r = /a\\/\\/b[/*]/g.test(s) ? a / b / 2 : 0;  // a division, then a comment
    return /x*/.test(u)
        && r
}
"""
    out = strip_js(src)
    assert out == (
        'import { x } from "./x.js";\n'
        "export function f(a, b) {\n"
        "const s = \"not // a comment\", t = 'nor /* this */';\n"
        'const u = `a ${b.map((c) => `<i class="${c}">  // kept  </i>`).join("")} /* kept */`;\n'
        "const r = /a\\/\\/b[/*]/g.test(s) ? a / b / 2 : 0;\n"
        "return /x*/.test(u)\n"
        "&& r\n"
        "}"
    )
    assert strip_js(out) == out


def test_a_line_break_stays_where_a_semicolon_may_be_inserted() -> None:
    # without the break, `a` and `(b)` would read as a call; `return` would return `x`
    assert strip_js("let y = a // why\n(b)") == "let y = a\n(b)"
    assert strip_js("return /* nothing */\nx") == "return\nx"
    assert strip_js("i /* a\nb */ ++j") == "i\n++j"


@pytest.mark.parametrize(
    "src",
    [
        'if (ok) /\\/\\//.test(s) && f("//x")',  # a regular expression after a statement's ")"
        'if (ok) /a  b/.test(s)',
        'x = zoom.in / 2 + "a/b" + "  // c"',  # a property named like a keyword divides
        'x = o.return / 2 + "  // c"',
        'x = i++ / 2 + "  // c"',  # after a postfix ++ a / divides
        'x = 1./2 + "  // c"',  # a number ending in its point
        "export default /a  b/",
        'const n = 0x1F / 2 + "  /* c */"',
    ],
)
def test_regular_expressions_and_divisions_are_told_apart(src: str) -> None:
    assert strip_js(src) == src


def test_every_line_terminator_ends_a_comment_and_counts_as_a_break() -> None:
    assert strip_js("let a = 1 // c\u2028let b = 2") == "let a = 1\nlet b = 2"
    assert strip_js("let a = b /* x\u2028 */ (c)") == "let a = b\n(c)"
    assert strip_js("return\u3000/a  b/") == "return /a  b/"


def test_style_sheets_lose_comments_not_strings() -> None:
    css = '/* theme */\n.a  .b  {\n  content: "/* kept */";  /* gone */ color: red;\n}\n'
    assert strip_css(css) == '.a .b {\ncontent: "/* kept */"; color: red;\n}'
    assert strip_css(".a/* x */.b { margin: 1px/**/2px }") == ".a/**/.b { margin: 1px/**/2px }"


def test_every_client_script_reads_the_same_to_an_independent_tokenizer(tmp_path: Path) -> None:
    if not ACORN.exists() or shutil.which("node") is None:
        if os.environ.get("CANASTA_REQUIRE_AXE"):
            pytest.fail(f"acorn or node missing ({ACORN})")
        pytest.skip("acorn not installed (scripts/test.sh runs: npm install --prefix .node acorn@8)")
    assert len(SCRIPTS) > 20
    stripped = []
    for path in SCRIPTS:
        out = tmp_path / path.name
        out.write_text(strip_js(path.read_text(encoding="utf-8")), encoding="utf-8")
        stripped.append(out)
    script = tmp_path / "tokens.cjs"
    script.write_text(TOKENS)
    run = subprocess.run(
        ["node", str(script), *map(str, SCRIPTS), *map(str, stripped)],
        capture_output=True, text=True, timeout=120, check=True,
        env={**os.environ, "NODE_PATH": str(ACORN.parent)},
    )
    tokens = json.loads(run.stdout)
    for path, out in zip(SCRIPTS, stripped, strict=True):
        assert tokens[str(out)] == tokens[str(path)], path.name
        assert len(out.read_bytes()) < 0.9 * len(path.read_bytes()), path.name


def test_the_server_sends_scripts_and_styles_compact(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        for path in ("js/table.js", "css/app.css"):
            source = (STATIC / path).read_text(encoding="utf-8")
            r = c.get(f"/static/{path}", headers={"accept-encoding": "gzip"})
            assert r.status_code == 200 and r.headers["content-encoding"] == "gzip"
            assert r.text == (strip_js(source) if path.endswith(".js") else strip_css(source))
            assert "/*" not in r.text.replace('"/*', "")
            kind = "text/javascript" if path.endswith(".js") else "text/css"
            assert r.headers["content-type"].startswith(kind)
            again = c.get(f"/static/{path}", headers={"if-none-match": r.headers["etag"]})
            assert again.status_code == 304
