"""kb.site.text: every way record text reaches a page leaves it inert (no browser needed)."""

from __future__ import annotations

import markdown
import pytest
from markupsafe import Markup

from kb.site.pages.context import _ENV, tidy_markdown
from kb.site.text import code_block, inline, join, markdown_block, mono

PAYLOADS = [
    "<script>window.__pwned=1</script>",
    "<img src=x onerror=window.__pwned=1>",
    "[x](javascript:alert(1))",
    "![](http://evil.example/x.png)",
    "<div onclick=alert(1)>raw block</div>",
    "text {: onclick=alert(1) }",
    "**bold** `code` _em_ # not a heading",
    "| a | b |",
    "&lt;script&gt; &amp; &#60;",
    '" onmouseover="alert(1)',
]


def _python_markdown(text: str) -> str:
    """What MkDocs does with a page: Python-Markdown with MkDocs' built-in extensions (toc, tables,
    fenced_code), kb's admonition, and attr_list / md_in_html which a host site may enable."""
    return markdown.markdown(text, extensions=["toc", "tables", "fenced_code", "admonition", "attr_list",
                                               "md_in_html"])


@pytest.mark.parametrize("payload", PAYLOADS)
def test_inline_renders_as_the_same_text(payload: str) -> None:
    from bs4 import BeautifulSoup

    html = _python_markdown(f"Before {inline(payload)} after")
    soup = BeautifulSoup(html, "html.parser")
    assert soup.find_all(["script", "img", "a", "strong", "em", "code", "table", "div"]) == []
    assert not any(k.startswith("on") for tag in soup.find_all(True) for k in tag.attrs)
    assert soup.get_text() == f"Before {payload} after"


def test_inline_is_markup_and_folds_newlines() -> None:
    out = inline("a\n\n# b")
    assert isinstance(out, Markup)
    assert "\n" not in out
    assert out == "a &#35; b"


def test_inline_escapes_every_markdown_special_character() -> None:
    out = inline("\\`*_{}[]()#+-!|~^=<>&:\"'$")
    assert set(out.replace("&#", "").replace(";", "")) <= set("0123456789")


@pytest.mark.parametrize("text, want", [
    ("a & b # c", "a &#38; b &#35; c"),  # the references' own & and # are not escaped again
    ("#&", "&#35;&#38;"),
    ("&#38;", "&#38;&#35;38;"),  # a reference written in the record stays text
    ("\ue000 &#", "\ue000 &#38;&#35;"),  # the character that stands for & while # is replaced
    ("att-0012 [x]", "att&#45;0012 &#91;x&#93;"),
    ("plain words", "plain words"),
])
def test_inline_writes_each_special_character_as_its_reference_once(text: str, want: str) -> None:
    assert inline(text) == Markup(want)
    assert want == "".join(f"&#{ord(c)};" if c in "\\`*_{}[]()#+-!|~^=<>&:\"'$" else c for c in text)


def test_mono_wraps_escaped_text_in_code() -> None:
    assert mono("<b>") == Markup("<code>&#60;b&#62;</code>")


def test_join_escapes_plain_items_and_keeps_markup() -> None:
    out = join(["<x>", Markup("<a href='y'>ok</a>")], ", ")
    assert out == Markup("&#60;x&#62;, <a href='y'>ok</a>")


def test_code_block_fence_outgrows_backticks_inside() -> None:
    text = "before\n```\n<script>alert(1)</script>\n````\nafter"
    block = code_block(text)
    assert block.startswith("````` text\n") and block.endswith("\n`````")
    html = _python_markdown("x\n\n" + block + "\n\ny")
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    assert soup.find("script") is None
    assert "<script>alert(1)</script>" in soup.get_text()


def test_markdown_block_keeps_formatting_but_not_html() -> None:
    from bs4 import BeautifulSoup

    out = markdown_block("# Title\n\n**bold** and [ok](https://example.org)\n\n<script>window.__pwned=1</script>\n\n"
                         "<img src=x onerror=alert(1)>\n")
    soup = BeautifulSoup(str(out), "html.parser")
    assert soup.find("h3").get_text() == "Title"  # demoted two levels under the page's sections
    assert soup.find("strong").get_text() == "bold"
    assert soup.find("a", href="https://example.org") is not None
    assert soup.find("script") is None and soup.find("img") is None
    assert "<script>" in soup.get_text()


@pytest.mark.parametrize("text", ["[x](javascript:alert(1))", "[x](JaVaScRiPt:alert(1))", "[x](vbscript:msgbox(1))",
                                  "[x](data:text/html;base64,PHNjcmlwdD4=)", "<javascript:alert(1)>"])
def test_markdown_block_refuses_unsafe_links(text: str) -> None:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(str(markdown_block(text)), "html.parser")
    for a in soup.find_all("a"):
        assert not a["href"].lower().startswith(("javascript:", "vbscript:", "data:"))


def test_markdown_block_shows_images_as_links_and_fetches_nothing() -> None:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(str(markdown_block("![pic](http://evil.example/x.png)")), "html.parser")
    assert soup.find("img") is None
    a = soup.find("a")
    assert a.get_text() == "[image: pic]" and "nofollow" in a["rel"]


def test_markdown_block_of_nothing_is_empty() -> None:
    assert markdown_block(None) == "" and markdown_block("  \n") == ""


def test_templates_escape_by_default() -> None:
    template = _ENV.from_string("# {{ title }}\n\n{{ safe }}\n")
    out = template.render(title="<script>x</script> [a](javascript:b)", safe=Markup("<b>kept</b>"))
    assert "<script>" not in out and "](javascript" not in out
    assert "<b>kept</b>" in out


def test_tidy_markdown_separates_blocks_and_keeps_fences() -> None:
    out = tidy_markdown("text\n# H\n- a\nafter\n\n\n\n```\n\n\n# in code\n```\n")
    assert out == "text\n\n# H\n- a\n\nafter\n\n```\n\n\n# in code\n```\n"
