"""Report a problem: stored with the match record of the table it came from; rate-limited;
listed and handled with ``canasta admin reports``."""

from __future__ import annotations

import dataclasses

from canasta.cli import main
from canasta.server.reports import list_reports

from .support import ACCOUNT_CONFIG, Device, app_client, code


def test_reports_from_the_menu_and_from_a_table(db_url: str, capsys) -> None:
    config = dataclasses.replace(ACCOUNT_CONFIG, reports_per_hour=3)
    with app_client(db_url, config) as c:
        a = Device(c)
        r = a.post("/api/reports", {"category": "bug", "description": "  The menu\x07 froze \n"})
        assert r.status_code == 201 and r.json()["attached"] is False
        menu_id = r.json()["report"]
        table = a.post("/api/tables", {"mode": "computer", "players": 2}).json()["table"]
        r = a.post("/api/reports", {"category": "rules", "description": "pile?", "table": table,
                                    "client": {"lang": "en", "secret": "x"}})
        assert r.status_code == 201 and r.json()["attached"] is True
        table_report = r.json()["report"]
        assert code(a.post("/api/reports", {"category": "nope", "description": "x"})) == "bad_category"
        assert code(a.post("/api/reports", {"category": "bug", "description": "  "})) == "bad_description"
        assert code(a.post("/api/reports", {"category": "bug", "description": "x" * 2001})) == "bad_description"
        assert code(a.post("/api/reports", {"category": "bug", "description": "x", "table": "nothere"})) == "table_not_found"
        r = a.post("/api/reports", {"category": "other", "description": "third"})
        assert r.status_code == 201
        r = a.post("/api/reports", {"category": "other", "description": "fourth"})
        assert r.status_code == 429 and code(r) == "too_many_reports"
        reports = {r.id: r for r in c.portal.call(list_reports, c.app.state.store)}
        assert reports[menu_id].description == "The menu froze" and reports[menu_id].record is None
        stored = reports[table_report]
        assert stored.table_id == table and stored.record["settings"]["players"] == 2
        assert "seed" in stored.record and stored.client == {"lang": "en"}
    url = db_url.replace("sqlite+aiosqlite", "sqlite")
    assert main(["admin", "reports", "--open", "--db", url]) == 0
    out = capsys.readouterr().out
    assert f"#{table_report}" in out and "rules" in out and "record attached" in out
    assert main(["admin", "reports", "--handle", str(menu_id), "--db", url]) == 0
    assert "marked handled" in capsys.readouterr().out
    assert main(["admin", "reports", "--open", "--db", url]) == 0
    out = capsys.readouterr().out
    assert f"#{menu_id} " not in out and f"#{table_report} " in out
    assert main(["admin", "reports", "--handle", str(menu_id), "--db", url]) == 1
