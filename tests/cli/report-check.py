#!/usr/bin/env python3
"""report-check.py: checks of a report file for tests/cli/report.sh.

html FILE: parses with html.parser; no script, no external reference (src,
href, url() or @import to another place), one inline SVG at most per drawing;
no escape, control or bidi character anywhere.
md FILE: no escape, control or bidi character; outside fenced blocks no raw
'<' that opens markup.
Exit 0 when it holds; the reason on stderr otherwise.
"""
import html.parser
import re
import sys

BAD_CHARS = re.compile('[\x00-\x08\x0b-\x1f\x7f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]')
ALLOWED = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "p",
           "table", "tr", "th", "td", "pre", "div", "span", "strong", "ul",
           "li", "svg", "line", "rect", "circle", "text"}
XMLNS = "http://www.w3.org/2000/svg"


class Check(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.errors = []
        self.stack = []
        self.tags = {}
        self.style = ""
        self.in_style = False

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag not in ALLOWED:
            self.errors.append("element <%s>" % tag)
        for k, v in attrs:
            if k.startswith("on"):
                self.errors.append("handler %s" % k)
            if k in ("src", "href", "xlink:href", "action"):
                self.errors.append("reference %s=%r" % (k, v))
            if k == "xmlns" and v != XMLNS:
                self.errors.append("xmlns %r" % v)
        if tag not in ("meta",):
            self.stack.append(tag)
        self.in_style = tag == "style"

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self.stack.pop()

    def handle_endtag(self, tag):
        self.in_style = False
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("unbalanced </%s> (open: %s)" % (tag, self.stack[-3:]))
            return
        self.stack.pop()

    def handle_data(self, data):
        if self.in_style:
            self.style += data


def check_html(text):
    p = Check()
    p.feed(text)
    p.close()
    err = p.errors
    if p.stack:
        err.append("left open: %s" % p.stack)
    if re.search(r"url\(|@import", p.style):
        err.append("external reference in the style")
    if p.tags.get("body") != 1 or p.tags.get("script"):
        err.append("no body, or a script")
    return err


def check_md(text):
    err = []
    fence = None
    for n, line in enumerate(text.split("\n"), 1):
        m = re.match(r"^(`{3,})", line)
        if m and fence is None:
            fence = m.group(1)
            continue
        if fence is not None:
            if line == fence:
                fence = None
            elif line.startswith(fence):
                err.append("line %d: a fence closed early" % n)
            continue
        if re.search(r"<[A-Za-z/!?]", line):
            err.append("line %d: markup %r" % (n, line[:80]))
    if fence is not None:
        err.append("a fence left open")
    return err


def main():
    kind, path = sys.argv[1], sys.argv[2]
    text = open(path, encoding="utf-8").read()
    err = []
    m = BAD_CHARS.search(text)
    if m:
        err.append("control or bidi character %r at %d" % (m.group(0), m.start()))
    err += check_html(text) if kind == "html" else check_md(text)
    for e in err:
        print(e, file=sys.stderr)
    return 1 if err else 0


if __name__ == "__main__":
    sys.exit(main())
