"""The web client's scripts and styles without their comments, as the server sends them.

The client's files are written to be read: about a sixth of a script, gzipped, is comments and
indentation. The page's first load has a budget (100 kB, gzipped), so the server sends each
script and style sheet without comments, with each run of blanks between tokens made one space
or one line break. Nothing else changes: strings, template literals (nested ones too) and
regular expressions are copied as they are, and a line break stays a line break, so automatic
semicolon insertion reads the text as before. A test compares every script's tokens before and
after with an independent JavaScript tokenizer (acorn).
"""

from __future__ import annotations

import re

#: words after which a ``/`` starts a regular expression, not a division
_REGEX_AFTER_WORDS = frozenset(
    "return typeof instanceof in of new delete void throw case do else yield await default".split()
)
#: words whose parenthesis, once closed, may be followed by a statement (a regular expression)
_STATEMENT_HEADS = frozenset("if while for with".split())
#: line terminators, and every other blank of ECMAScript (WhiteSpace: tab, VT, FF, SP, NBSP,
#: ZWNBSP and the Zs spaces)
_LINE_BREAKS = "\n\r\u2028\u2029"
_BLANKS = " \t\f\v\u00a0\ufeff\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000" + _LINE_BREAKS
#: a numeric literal (decimal with fraction and exponent, or 0x / 0o / 0b; BigInt's n)
_NUMBER = re.compile(r"0[xXoObB][0-9a-fA-F_]+n?|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?n?")


def _line_end(src: str, start: int) -> int:
    """Where the line that ``start`` is on ends (its terminator's index, or the text's end)."""
    ends = [k for k in (src.find(c, start) for c in _LINE_BREAKS) if k >= 0]
    return min(ends) if ends else len(src)


class _Scripts:
    """One pass over a script's text (see :func:`strip_js`)."""

    def __init__(self, text: str) -> None:
        self.src = text
        self.out: list[str] = []
        self.i = 0
        #: per open ``${`` of a template literal: the braces opened inside it
        self.templates: list[int] = []
        #: per open parenthesis: does a statement (so maybe a regular expression) follow its end?
        self.parens: list[bool] = []
        #: may a ``/`` here start a regular expression? (else it divides)
        self.regex_ok = True
        #: the last token: a word, and was it right after a ``.`` (a property name)?
        self.last_word = ""
        self.after_dot = False
        #: blanks seen since the last token: "" none, " " spaces, "\n" a line break
        self.gap = ""

    def emit(self, piece: str) -> None:
        if self.gap and self.out:
            self.out.append(self.gap)
        self.gap = ""
        self.out.append(piece)

    def blank(self, newline: bool) -> None:
        if newline:
            self.gap = "\n"
        elif not self.gap:
            self.gap = " "

    def run(self) -> str:
        src, n = self.src, len(self.src)
        while self.i < n:
            c = src[self.i]
            if c in _BLANKS:
                self.blank(c in _LINE_BREAKS)
                self.i += 1
            elif c == "/" and src.startswith("//", self.i):
                self.i = _line_end(src, self.i)
            elif c == "/" and src.startswith("/*", self.i):
                end = src.find("*/", self.i + 2)
                end = n if end < 0 else end + 2
                self.blank(any(b in src[self.i : end] for b in _LINE_BREAKS))
                self.i = end
            elif c == "/" and self.regex_ok:
                self.regex()
            elif c in "'\"":
                self.string(c)
            elif c == "`":
                self.i += 1
                self.template_text("`")
            elif c == "{" and self.templates:
                self.templates[-1] += 1
                self.punct(c)
            elif c == "}" and self.templates and self.templates[-1] == 0:
                self.templates.pop()
                self.i += 1
                self.template_text("}")
            elif c == "}" and self.templates:
                self.templates[-1] -= 1
                self.punct(c)
            elif c.isdigit() or (c == "." and src[self.i + 1 : self.i + 2].isdigit()):
                self.number()
            elif c.isalnum() or c in "_$\\" or ord(c) > 127:
                self.word()
            else:
                self.punct(c)
        return "".join(self.out)

    def operand_ended(self) -> None:
        """A number, string, regular expression or template just ended: a ``/`` divides."""
        self.regex_ok, self.last_word, self.after_dot = False, "", False

    def punct(self, c: str) -> None:
        src, i = self.src, self.i
        operand = not self.regex_ok  # was the token before this one the end of an operand?
        if c in "+-" and src.startswith(c + c, i) and operand:
            # a postfix ++ or --: the operand goes on, and a / after it divides
            self.emit(c + c)
            self.i = i + 2
            self.last_word, self.after_dot = "", False
            return
        self.emit(c)
        self.i = i + 1
        if c == "(":
            self.parens.append(self.last_word in _STATEMENT_HEADS and not self.after_dot)
            self.regex_ok = True
        elif c == ")":
            self.regex_ok = self.parens.pop() if self.parens else False
        else:
            self.regex_ok = c not in "]}"
        self.after_dot = c == "." or (c == "?" and src.startswith(".", i + 1) and not src[i + 2 : i + 3].isdigit())
        self.last_word = ""

    def number(self) -> None:
        m = _NUMBER.match(self.src, self.i)
        end = m.end() if m else self.i + 1
        self.emit(self.src[self.i : end])
        self.i = end
        self.operand_ended()

    def word(self) -> None:
        src, start = self.src, self.i
        j = start
        while j < len(src) and src[j] not in _BLANKS and (src[j].isalnum() or src[j] in "_$\\" or ord(src[j]) > 127):
            j += 1
        word = src[start:j]
        self.emit(word)
        self.i = j
        # a property's name (o.return, zoom.in) is an operand, whatever the word
        self.regex_ok = word in _REGEX_AFTER_WORDS and not self.after_dot
        self.last_word, self.after_dot = word, False

    def string(self, quote: str) -> None:
        src, j = self.src, self.i + 1
        while j < len(src) and src[j] != quote:
            j += 2 if src[j] == "\\" else 1
        self.emit(src[self.i : j + 1])
        self.i = j + 1
        self.operand_ended()

    def regex(self) -> None:
        src, j, in_class = self.src, self.i + 1, False
        while j < len(src):
            c = src[j]
            if c == "\\":
                j += 2
                continue
            if c in _LINE_BREAKS:
                break  # not a regular expression after all: copy up to here as it is
            if c == "[":
                in_class = True
            elif c == "]":
                in_class = False
            elif c == "/" and not in_class:
                j += 1
                while j < len(src) and (src[j].isalnum() or src[j] in "_$"):
                    j += 1
                break
            j += 1
        self.emit(src[self.i : j])
        self.i = j
        self.operand_ended()

    def template_text(self, opener: str) -> None:
        """The literal text of a template from just after ``opener`` (a backtick or the ``}`` of
        a substitution) to its end or its next ``${``, copied as it is."""
        src, j = self.src, self.i
        while j < len(src):
            c = src[j]
            if c == "\\":
                j += 2
            elif c == "`":
                j += 1
                self.emit(opener + src[self.i : j])
                self.i = j
                self.operand_ended()
                return
            elif c == "$" and src.startswith("${", j):
                j += 2
                self.emit(opener + src[self.i : j])
                self.i = j
                self.templates.append(0)
                self.regex_ok, self.last_word, self.after_dot = True, "", False
                return
            else:
                j += 1
        self.emit(opener + src[self.i :])
        self.i = len(src)


def strip_js(text: str) -> str:
    """A script without its comments, each run of blanks between tokens one space or one line
    break (see the module's docstring)."""
    return _Scripts(text).run()


def strip_css(text: str) -> str:
    """A style sheet without its comments and with each run of blanks one space or line break
    (strings are copied as they are)."""
    out: list[str] = []
    i, n = 0, len(text)
    gap = ""
    while i < n:
        c = text[i]
        if c in " \t\r\n\f":
            gap = "\n" if c in "\r\n" or gap == "\n" else " "
            i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            if i > 0 and text[i - 1] not in " \t\r\n\f" and end < n and text[end] not in " \t\r\n\f":
                # between two tokens: an empty comment keeps them apart without a space
                # (a space would make ".a/**/.b" a descendant selector)
                out.append("/**/")
            else:
                gap = gap or " "
            i = end
            continue
        if gap and out:
            out.append(gap)
        gap = ""
        if c in "'\"":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)
