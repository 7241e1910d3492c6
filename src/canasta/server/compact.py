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

#: words after which a ``/`` starts a regular expression, not a division
_REGEX_AFTER_WORDS = frozenset(
    "return typeof instanceof in of new delete void throw case do else yield await".split()
)
#: characters after which a ``/`` is a division (the end of an operand)
_OPERAND_END = frozenset(")]}")


class _Scripts:
    """One pass over a script's text (see :func:`strip_js`)."""

    def __init__(self, text: str) -> None:
        self.src = text
        self.out: list[str] = []
        self.i = 0
        #: per open ``${`` of a template literal: the braces opened inside it
        self.templates: list[int] = []
        #: may a ``/`` here start a regular expression?
        self.regex_ok = True
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
            if c in " \t\r\n\f\v\u00a0\ufeff\u2028\u2029":
                self.blank(c in "\n\r\u2028\u2029")
                self.i += 1
            elif c == "/" and src.startswith("//", self.i):
                end = src.find("\n", self.i)
                self.i = n if end < 0 else end
            elif c == "/" and src.startswith("/*", self.i):
                end = src.find("*/", self.i + 2)
                end = n if end < 0 else end + 2
                self.blank("\n" in src[self.i : end])
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
            elif c.isalnum() or c in "_$\\" or ord(c) > 127:
                self.word()
            else:
                self.punct(c)
        return "".join(self.out)

    def punct(self, c: str) -> None:
        self.emit(c)
        self.i += 1
        self.regex_ok = c not in _OPERAND_END

    def word(self) -> None:
        src, start = self.src, self.i
        j = start
        while j < len(src) and (src[j].isalnum() or src[j] in "_$\\" or ord(src[j]) > 127):
            j += 1
        # a number's exponent sign or fraction: 1e-3, 1.5 (the dot comes through punct)
        word = src[start:j]
        self.emit(word)
        self.i = j
        self.regex_ok = word in _REGEX_AFTER_WORDS

    def string(self, quote: str) -> None:
        src, j = self.src, self.i + 1
        while j < len(src) and src[j] != quote:
            j += 2 if src[j] == "\\" else 1
        self.emit(src[self.i : j + 1])
        self.i = j + 1
        self.regex_ok = False

    def regex(self) -> None:
        src, j, in_class = self.src, self.i + 1, False
        while j < len(src):
            c = src[j]
            if c == "\\":
                j += 2
                continue
            if c == "\n":
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
        self.regex_ok = False

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
                self.regex_ok = False
                return
            elif c == "$" and src.startswith("${", j):
                j += 2
                self.emit(opener + src[self.i : j])
                self.i = j
                self.templates.append(0)
                self.regex_ok = True
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
            i = n if end < 0 else end + 2
            gap = gap or " "
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
