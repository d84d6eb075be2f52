"""Person import files used by the importer and CLI tests."""

from __future__ import annotations

from pathlib import Path

from fact import service as facts

YAML_TEXT = """\
persons:
  - person_id: p_report
    display_name: 小王
    aliases: [Xiao Wang, wang]
    manager_id: p_boss          # defined further down in the same file
    timezone: Europe/Berlin
    locale: en
    work_state: {status: on_leave, until: "2026-04-01T09:00:00+02:00", stand_in_id: p_boss}
    channel_bindings:
      - {channel: feishu, external_user_id: ou_report, chat_id: oc_report}
    interaction_policy:
      preferred_channel: feishu
      max_proactive_contacts_per_day: 2
      quiet_hours: [{start: "22:00", end: "07:00"}]
      quiet_days: [6, 7]
  - person_id: p_boss
    display_name: 老板
    role: principal
    channel_bindings:
      - {channel: telegram, external_user_id: "1001", chat_id: "1001"}
"""

CSV_HEADER = (
    "person_id,display_name,aliases,role,manager_id,timezone,locale,feishu_open_id,feishu_chat_id,"
    "telegram_user_id,telegram_chat_id,preferred_channel,max_proactive_contacts_per_day\n"
)
CSV_ROWS = [
    "p_dev,Dev,Developer|dev one,member,p_lead,,en,ou_dev,oc_dev,,,feishu,3\n",
    "p_bad,Bad,,member,,Mars/Olympus,zh,,,,,,\n",
    "p_lead,Lead,,principal,,Asia/Tokyo,zh,ou_lead,,2002,2002,telegram,\n",
    "p_cap,Cap,,member,,,zh,,,,,,101\n",
]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def csv_file(tmp_path: Path, rows: list[str] | None = None, name: str = "persons.csv") -> Path:
    return write(tmp_path, name, CSV_HEADER + "".join(CSV_ROWS if rows is None else rows))


def person_changed_count(ctx) -> int:
    with ctx.reader() as uow:
        rows, _ = facts.list_(uow, filters=facts.FactFilter(fact_type="person_changed"), limit=500)
        return len(rows)
