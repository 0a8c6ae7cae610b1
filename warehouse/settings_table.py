"""README's "Settings" table, generated from ``warehouse.settings.Settings`` (one row per
variable: its name, who reads it, its default, its meaning with the unit)."""

from __future__ import annotations

from warehouse.settings import Settings, env_var


def settings_table() -> str:
    """The Markdown table of every variable (README "Settings")."""
    rows = ["| Variable | Read by | Default | Meaning |", "| --- | --- | --- | --- |"]
    for name, field in Settings.model_fields.items():
        if field.exclude:
            continue
        extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
        default = field.get_default()
        shown = "unset" if default in (None, ()) else f"`{_plain(default)}`"
        rows.append(
            f"| `{env_var(name)}` | {extra.get('read_by', '')} | {shown} | {field.description} |"
        )
    return "\n".join(rows)


def _plain(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
