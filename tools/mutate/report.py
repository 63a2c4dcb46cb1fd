"""DIR/mutate.html: one self-contained page of a `parity mutate` run (scores per folder, then
every mutant with its status, time, oracle, blamed op and diff). Everything from the sources or
the findings is HTML-escaped."""

import html
import os

STYLE = """body{font:14px sans-serif;margin:2em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}
pre{margin:0;font-size:12px}.killed{background:#e6f4ea}.survived{background:#fce8e6}
.not-covered{background:#fef7e0}.timeout,.uncompilable,.equivalent{background:#eee}"""


def write(path, state):
    e = html.escape
    rows = []
    for folder, s in sorted(state.get("score", {}).items()):
        score = "" if s.get("score") is None else f"{100 * s['score']:.0f} %"
        rows.append(f"<tr><td>{e(folder)}</td><td>{s['total']}</td><td>{s['killed']}</td>"
                    f"<td>{s['survived']}</td><td>{s['not covered']}</td><td>{s['timeout']}</td>"
                    f"<td>{s['equivalent']}</td><td>{s['uncompilable']}</td><td>{score}</td></tr>")
    mutants = []
    for key in sorted(state.get("mutants", {}), key=int):
        m = state["mutants"][key]
        status = m.get("status", "not run")
        mutants.append(
            f"<tr class='{e(status.replace(' ', '-'))}'><td>{m['id']}</td>"
            f"<td>{e(m['file'])}:{m['line']}</td><td>{e(m['mutation'])}</td><td>{e(status)}</td>"
            f"<td>{m.get('seconds', '')}</td><td>{e(str(m.get('oracle') or ''))}</td>"
            f"<td>{e(str(m.get('blamed_op') or ''))}</td><td><pre>{e(m['diff'])}</pre></td></tr>")
    settings = e(", ".join(f"{k} {v}" for k, v in sorted(state.get("settings", {}).items())))
    page = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>parity mutate</title>"
            f"<style>{STYLE}</style></head><body><h1>parity mutate</h1><p>{settings}</p>"
            "<h2>Score per folder</h2><p>killed / (total &minus; equivalent &minus; "
            "uncompilable)</p><table><tr><th>folder</th><th>total</th><th>killed</th>"
            "<th>survived</th><th>not covered</th><th>timeout</th><th>equivalent</th>"
            "<th>uncompilable</th><th>score</th></tr>" + "".join(rows) + "</table>"
            "<h2>Mutants</h2><table><tr><th>id</th><th>where</th><th>mutation</th>"
            "<th>status</th><th>s</th><th>oracle</th><th>blamed op</th><th>diff</th></tr>"
            + "".join(mutants) + "</table></body></html>\n")
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(page)
    os.replace(tmp, path)
