"""Mutant schemata: one rewritten file holds every chosen mutant behind ::parity::mutant::On(id).

Sites come from an AST, so their ranges nest or are disjoint; the rewrite renders a range by
copying its text and replacing each outermost site inside it by its schema, whose kept parts
(operands, condition, statement) are rendered the same way, recursively. Nothing inserted holds a
newline, and `#line 1` follows the one include added on top, so the compiler's line numbers (and
__LINE__) are the original file's.
"""

SWITCH = "::parity::mutant::On"
HEADER = '#include "core/mutant_switch.h"\n#line 1\n'


def schema(site, parts):
    """The text of one site's mutant schema, given its rendered parts."""
    on = f"{SWITCH}({site.id})"
    if site.kind in ("relational", "arithmetic", "logical", "compound"):
        lhs, rhs = parts
        return (f"({on} ? ({lhs} {site.new} {rhs}) : ({lhs} {site.old} {rhs}))")
    if site.kind == "boundary" and len(parts) == 2:
        lhs, rhs = parts
        shift = site.new.split("rhs ")[1].rstrip(")")
        return (f"({on} ? ({lhs} {site.old} (({rhs}) {shift})) : "
                f"({lhs} {site.old} {rhs}))")
    if site.kind == "boundary":
        (index,) = parts
        return f"({on} ? (({index}) + 1) : ({index}))"
    if site.kind == "negate":
        (cond,) = parts
        # != on bools negates when the switch is on, whatever type the condition has.
        return f"(static_cast<bool>({cond}) != {on})"
    if site.kind == "constant":
        (literal,) = parts
        return f"({on} ? static_cast<decltype({literal})>({site.new}) : {literal})"
    if site.kind == "delete":
        (stmt,) = parts
        # Braces around the if: an unbraced `if (x) s; else t;` keeps its else.
        return f"{{ if (!{on}) {{ {stmt} }} }}"
    raise ValueError(f"unknown site kind {site.kind}")


def direct(site, parts):
    """What the live mutant computes, as plain code (for the report's diff)."""
    if site.kind in ("relational", "arithmetic", "logical", "compound"):
        return f"{parts[0]} {site.new} {parts[1]}"
    if site.kind == "boundary" and len(parts) == 2:
        return f"{parts[0]} {site.old} ({parts[1]}) {site.new.split('rhs ')[1].rstrip(')')}"
    if site.kind == "boundary":
        return f"({parts[0]}) + 1"
    if site.kind == "negate":
        return f"!({parts[0]})"
    if site.kind == "constant":
        return site.new
    return "/* deleted */"


def mutated_line(data, site):
    """The site's line(s) before and after the mutation, without a switch (for the diff)."""
    line_start = data.rfind(b"\n", 0, site.start) + 1
    line_end = data.find(b"\n", site.end)
    line_end = len(data) if line_end < 0 else line_end

    def text(s, e):
        return data[s:e].decode("utf-8", "replace")

    live = direct(site, [text(s, e) for (s, e) in site.parts])
    return (text(line_start, line_end),
            text(line_start, site.start) + live + text(site.end, line_end))


def render(data, sites):
    """`data` (bytes) with each site's schema in place; sites must nest or be disjoint."""
    ordered = sorted(sites, key=lambda s: (s.start, -s.end))

    def render_range(start, end, inside):
        out, at, i = [], start, 0
        while i < len(inside):
            site = inside[i]
            # Everything after `site` that lies within it belongs to its own rendering.
            j = i + 1
            while j < len(inside) and inside[j].start < site.end:
                j += 1
            nested = inside[i + 1:j]
            out.append(data[at:site.start].decode("utf-8", "surrogateescape"))
            parts = []
            for (s, e) in site.parts:
                parts.append(render_range(s, e, [n for n in nested
                                                 if s <= n.start and n.end <= e]))
            out.append(schema(site, parts))
            at, i = site.end, j
        out.append(data[at:end].decode("utf-8", "surrogateescape"))
        return "".join(out)

    return HEADER + render_range(0, len(data), ordered)


def check_nesting(sites):
    """Drops sites that overlap another without nesting (never seen from an AST; cheap to be
    sure), keeping the earlier one."""
    kept = []
    for site in sorted(sites, key=lambda s: (s.start, -s.end)):
        if any(k.start < site.start < k.end < site.end or
               site.start < k.start < site.end < k.end for k in kept):
            continue
        kept.append(site)
    return kept
