"""Finds mutation sites in a C++ file with libclang (Debian's python3-clang), never with regexes.

A site is one way to mutate one AST node: a relational or arithmetic operator replaced, a boundary
shifted (an index or a loop bound +1/-1), a condition negated, a statement deleted (a call, an
assignment, a `+=` accumulation, `++`, `break`, `continue`) or a constant replaced by 0, 1 or -1.
Only code inside function bodies is mutated, and never where a run-time switch cannot stand
(constexpr, template arguments, static_assert, case labels, array bounds; enum values, default
arguments and global initializers lie outside function bodies). `choose` keeps at most one site per
line, picked deterministically from the seed, the file and the line alone, so the choice on a line
does not move when other lines change.
"""

import hashlib
import os
import random

import clang.cindex as ci

K = ci.CursorKind

RELATIONAL = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
ARITHMETIC = {"+": "-", "-": "+", "*": "/", "/": "*", "%": "*"}
LOGICAL = {"&&": "||", "||": "&&"}
COMPOUND = {"+=": "-=", "-=": "+=", "*=": "/=", "/=": "*="}
ASSIGNMENTS = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="}

FUNCTION_KINDS = {K.FUNCTION_DECL, K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR,
                  K.FUNCTION_TEMPLATE, K.CONVERSION_FUNCTION, K.LAMBDA_EXPR}
# Where an expression is part of a type or a compile-time constant, not of run-time code.
NO_SWITCH_PARENTS = {K.STATIC_ASSERT, K.TYPE_REF, K.TEMPLATE_REF, K.DECL_REF_EXPR,
                     K.MEMBER_REF_EXPR, K.OVERLOADED_DECL_REF, K.NAMESPACE_REF,
                     K.CXX_TYPEID_EXPR, K.PACK_EXPANSION_EXPR, K.SIZE_OF_PACK_EXPR}
INTEGER_TYPES = {ci.TypeKind.INT, ci.TypeKind.UINT, ci.TypeKind.LONG, ci.TypeKind.ULONG,
                 ci.TypeKind.LONGLONG, ci.TypeKind.ULONGLONG, ci.TypeKind.SHORT,
                 ci.TypeKind.USHORT}
ARITHMETIC_TYPES = INTEGER_TYPES | {ci.TypeKind.FLOAT, ci.TypeKind.DOUBLE,
                                    ci.TypeKind.LONGDOUBLE}

# libclang tells libclang.so's name only through this; Debian's python3-clang finds it itself.
if not ci.Config.loaded and os.path.exists("/usr/lib/llvm-14/lib/libclang.so.1"):
    ci.Config.set_library_file("/usr/lib/llvm-14/lib/libclang.so.1")


class Site:
    """One candidate mutation. Offsets are bytes into the file; `parts` are the sub-ranges the
    rewrite keeps (operands, the condition, the statement), rendered with their own mutants."""

    def __init__(self, kind, line, start, end, parts, old, new, description):
        self.kind = kind          # relational, arithmetic, logical, compound, boundary,
        self.line = line          # negate, delete, constant
        self.start = start
        self.end = end
        self.parts = parts
        self.old = old
        self.new = new
        self.description = description
        self.id = 0               # given when the mutants of a run are numbered

    def key(self):
        return (self.start, -self.end, self.kind, self.new)


def compile_args(root, extra=()):
    """The flags Bazel compiles core/ with (.bazelrc, the include roots), enough for the AST."""
    args = ["-x", "c++", "-std=c++17", "-I" + root, "-I/usr/include/eigen3"]
    if os.path.isdir("/usr/local/cuda/include"):  # gpu/ includes cuBLAS and the runtime
        args.append("-I/usr/local/cuda/include")
    for bin_dir in ("bazel-bin", "bazel-out/k8-fastbuild/bin"):
        path = os.path.join(root, bin_dir)
        if os.path.isdir(path):
            args.append("-I" + path)
    return args + list(extra)


def parse(path, args, unsaved=None):
    return ci.Index.create().parse(path, args=args, unsaved_files=unsaved)


def _is_constexpr(cursor):
    for token in cursor.get_tokens():
        if token.spelling == "constexpr":
            return True
        if token.spelling in ("{", "=", ";"):
            return False
    return False


def _canonical(type_):
    return type_.get_canonical().kind


class _Finder:
    def __init__(self, tu, path, data):
        self.tu = tu
        self.path = os.path.realpath(path)
        self.data = data
        self.sites = []

    def text(self, start, end):
        return self.data[start:end].decode("utf-8", "replace")

    def in_file(self, cursor):
        loc = cursor.extent.start
        end = cursor.extent.end
        return (loc.file is not None and end.file is not None
                and os.path.realpath(loc.file.name) == self.path
                and os.path.realpath(end.file.name) == self.path
                and loc.offset < end.offset)

    def from_file(self, cursor):
        loc = cursor.location.file
        return loc is not None and (loc.name == self.path or
                                    os.path.realpath(loc.name) == self.path)

    def tokens_between(self, start, end):
        """The file's tokens in [start, end), from the translation unit (macros unexpanded)."""
        extent = ci.SourceRange.from_locations(
            self.tu.get_location(self.path, start), self.tu.get_location(self.path, end))
        return [t for t in self.tu.get_tokens(extent=extent)
                if start <= t.extent.start.offset and t.extent.end.offset <= end]

    def walk(self, cursor, parents, in_body, no_switch):
        if parents and not self.from_file(cursor):
            return  # a header's declarations hold none of this file's code
        kind = cursor.kind
        if kind in FUNCTION_KINDS:
            # A constexpr function may run at compile time, where no switch can be read.
            no_switch = no_switch or (kind != K.LAMBDA_EXPR and _is_constexpr(cursor))
        if kind == K.VAR_DECL and (_is_constexpr(cursor) or
                                   cursor.type.kind in (ci.TypeKind.CONSTANTARRAY,
                                                        ci.TypeKind.DEPENDENTSIZEDARRAY)):
            no_switch = True  # a constant, or an array whose bound must be one
        if kind in (K.STATIC_ASSERT, K.TYPE_REF, K.TEMPLATE_REF, K.DECL_REF_EXPR,
                    K.OVERLOADED_DECL_REF, K.SIZE_OF_PACK_EXPR):
            # Below these is a template argument or a compile-time constant (f<9 + 1>()).
            no_switch_below = True
        else:
            no_switch_below = False
        if kind == K.COMPOUND_STMT and parents and parents[-1].kind in FUNCTION_KINDS:
            in_body = True
        if in_body and not no_switch and self.in_file(cursor):
            parent = parents[-1] if parents else None
            if parent is None or parent.kind not in NO_SWITCH_PARENTS:
                self.visit(cursor, parent)
        children = list(cursor.get_children())
        for i, child in enumerate(children):
            child_no_switch = no_switch or no_switch_below
            if kind == K.CASE_STMT and i == 0:
                child_no_switch = True  # the label must stay a constant expression
            if kind in (K.IF_STMT,) and self._is_if_constexpr(cursor) and i == 0:
                child_no_switch = True
            self.walk(child, parents + [cursor], in_body, child_no_switch)

    def _is_if_constexpr(self, cursor):
        tokens = list(cursor.get_tokens())[:2]
        return len(tokens) == 2 and tokens[1].spelling == "constexpr"

    def add(self, kind, anchor, start, end, parts, old, new):
        line = self.tu.get_location(self.path, anchor).line
        description = f"{kind}: {old} -> {new}"
        site = Site(kind, line, start, end, parts, old, new, description)
        # The lines the schema spans: a compile error there is blamed on this mutant.
        site.first_line = self.tu.get_location(self.path, start).line
        site.last_line = self.tu.get_location(self.path, max(start, end - 1)).line
        self.sites.append(site)

    def visit(self, cursor, parent):
        kind = cursor.kind
        start, end = cursor.extent.start.offset, cursor.extent.end.offset
        if kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
            self.visit_binary(cursor, start, end)
        elif kind in (K.INTEGER_LITERAL, K.FLOATING_LITERAL):
            self.visit_literal(cursor, parent, start, end)
        elif kind == K.ARRAY_SUBSCRIPT_EXPR:
            children = list(cursor.get_children())
            if len(children) == 2 and self.in_file(children[1]):
                index = children[1]
                if _canonical(index.type) in INTEGER_TYPES:
                    s, e = index.extent.start.offset, index.extent.end.offset
                    self.add("boundary", s, s, e, [(s, e)], "[i]", "[i + 1]")
        elif kind in (K.IF_STMT, K.WHILE_STMT, K.DO_STMT, K.FOR_STMT):
            self.visit_condition(cursor)
        if parent is not None and parent.kind == K.COMPOUND_STMT:
            self.visit_statement(cursor, start, end)

    def visit_binary(self, cursor, start, end):
        children = list(cursor.get_children())
        if len(children) != 2 or not all(self.in_file(c) for c in children):
            return
        lhs, rhs = children
        l_end, r_start = lhs.extent.end.offset, rhs.extent.start.offset
        tokens = self.tokens_between(l_end, r_start)
        if len(tokens) != 1:
            return  # the operator comes from a macro, or the operands do
        op = tokens[0].spelling
        op_at = tokens[0].extent.start.offset
        parts = [(lhs.extent.start.offset, l_end), (r_start, rhs.extent.end.offset)]
        types = [_canonical(lhs.type), _canonical(rhs.type)]
        dependent = any(t in (ci.TypeKind.DEPENDENT, ci.TypeKind.UNEXPOSED) for t in types)
        arithmetic = all(t in ARITHMETIC_TYPES for t in types)
        if op in RELATIONAL:
            self.add("relational", op_at, start, end, parts, op, RELATIONAL[op])
            # A loop bound shifted by one, away from what `<` <-> `<=` already does
            # (i < n -> i < n - 1, i > n -> i > n + 1), for integer bounds.
            if types[1] in INTEGER_TYPES and op in ("<", "<=", ">", ">="):
                shift = "- 1" if op in ("<", "<=") else "+ 1"
                self.add("boundary", op_at, start, end, parts, op, f"{op} (rhs {shift})")
        elif op in ARITHMETIC and (arithmetic or dependent):
            if op == "%" and not all(t in INTEGER_TYPES for t in types) and not dependent:
                return
            self.add("arithmetic", op_at, start, end, parts, op, ARITHMETIC[op])
        elif op in LOGICAL:
            self.add("logical", op_at, start, end, parts, op, LOGICAL[op])
        elif op in COMPOUND and (arithmetic or dependent):
            self.add("compound", op_at, start, end, parts, op, COMPOUND[op])

    def visit_literal(self, cursor, parent, start, end):
        tokens = self.tokens_between(start, end)
        if len(tokens) != 1 or tokens[0].kind != ci.TokenKind.LITERAL:
            return
        spelling = tokens[0].spelling
        try:
            value = float(spelling.rstrip("uUlLfF")) if cursor.kind == K.FLOATING_LITERAL \
                else int(spelling.rstrip("uUlL"), 0)
        except ValueError:
            return
        for new in ("0", "1", "-1"):
            if float(new) != value:
                self.add("constant", start, start, end, [(start, end)], spelling, new)

    def visit_condition(self, cursor):
        tokens = list(cursor.get_tokens())
        keyword = {K.IF_STMT: "if", K.WHILE_STMT: "while", K.DO_STMT: "do", K.FOR_STMT: "for"}
        if not tokens or tokens[0].spelling != keyword[cursor.kind]:
            return  # the statement comes from a macro (PARITY_ENFORCE's if)
        # The condition is the expression child spanning the first parenthesized header (if,
        # while) or its middle clause (for); `do ... while (c)` ends with it.
        if cursor.kind == K.DO_STMT:
            children = list(cursor.get_children())
            cond = children[-1] if children else None
        else:
            cond = None
            opening = next((i for i, t in enumerate(tokens) if t.spelling == "("), None)
            if opening is None:
                return
            depth, header_end, semis = 0, None, []
            for t in tokens[opening:]:
                if t.spelling in "([{":
                    depth += 1
                elif t.spelling in ")]}":
                    depth -= 1
                    if depth == 0:
                        header_end = t.extent.start.offset
                        break
                elif t.spelling == ";" and depth == 1:
                    semis.append(t.extent.start.offset)
            if header_end is None:
                return
            lo = tokens[opening].extent.end.offset
            if cursor.kind == K.FOR_STMT:
                if len(semis) != 2:
                    return  # a range-based for has no condition
                lo, header_end = semis[0] + 1, semis[1]
            elif semis:
                lo = semis[-1] + 1  # `if (init; cond)`
            for child in cursor.get_children():
                if (child.kind.is_expression() and self.in_file(child)
                        and lo <= child.extent.start.offset
                        and child.extent.end.offset <= header_end):
                    cond = child
                    break
        if cond is None or not cond.kind.is_expression() or not self.in_file(cond):
            return
        if cursor.kind == K.IF_STMT and self._is_if_constexpr(cursor):
            return
        s, e = cond.extent.start.offset, cond.extent.end.offset
        self.add("negate", s, s, e, [(s, e)], "c", "!c")

    def visit_statement(self, cursor, start, end):
        inner = cursor
        while inner.kind == K.UNEXPOSED_EXPR:  # ExprWithCleanups and friends
            children = list(inner.get_children())
            if len(children) != 1:
                return
            inner = children[0]
        what = None
        if inner.kind in (K.CALL_EXPR, K.BREAK_STMT, K.CONTINUE_STMT):
            what = {K.CALL_EXPR: "call", K.BREAK_STMT: "break",
                    K.CONTINUE_STMT: "continue"}[inner.kind]
            if inner.spelling.startswith("operator") and inner.spelling.endswith("="):
                what = "assignment"  # a class type's operator=, operator+=, ...
        elif inner.kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
            children = list(inner.get_children())
            if len(children) == 2:
                ops = self.tokens_between(children[0].extent.end.offset,
                                          children[1].extent.start.offset)
                if len(ops) == 1 and ops[0].spelling in ASSIGNMENTS:
                    what = "assignment" if ops[0].spelling == "=" else ops[0].spelling
        elif inner.kind == K.UNARY_OPERATOR:
            spellings = [t.spelling for t in cursor.get_tokens()]
            if "++" in spellings or "--" in spellings:
                what = "increment"
        if what is None:
            return
        # The statement's `;` follows its expression (break/continue end at their keyword).
        after = self.tokens_between(end, min(end + 64, len(self.data)))
        if not after or after[0].spelling != ";":
            return
        stmt_end = after[0].extent.end.offset
        self.add("delete", start, start, stmt_end, [(start, stmt_end)], what, "deleted")


def find_sites(path, args, data=None):
    """Every candidate site in `path`, sorted by position; the parse's errors as strings."""
    if data is None:
        with open(path, "rb") as f:
            data = f.read()
    tu = parse(path, args)
    errors = [str(d) for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    finder = _Finder(tu, path, data)
    finder.walk(tu.cursor, [], False, False)
    unique = {}
    for site in finder.sites:
        unique.setdefault(site.key(), site)
    return sorted(unique.values(), key=Site.key), errors


def choose(sites, seed, label):
    """At most one site per line, from a generator seeded by (seed, file label, line) only."""
    by_line = {}
    for site in sites:
        by_line.setdefault(site.line, []).append(site)
    chosen = []
    for line in sorted(by_line):
        digest = hashlib.sha256(f"{seed}:{label}:{line}".encode()).hexdigest()
        rng = random.Random(int(digest[:16], 16))
        # A kind first, then a site of that kind: a line with three literals is not three times
        # as likely to lose a constant as to get its operator replaced.
        kinds = sorted({s.kind for s in by_line[line]})
        kind = kinds[rng.randrange(len(kinds))]
        candidates = sorted((s for s in by_line[line] if s.kind == kind), key=Site.key)
        chosen.append(candidates[rng.randrange(len(candidates))])
    return chosen
