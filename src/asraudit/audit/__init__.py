"""The whole audit from one spec: ``asraudit audit SPEC.toml`` (see ``spec`` for the format, ``pipeline`` for the order)."""
