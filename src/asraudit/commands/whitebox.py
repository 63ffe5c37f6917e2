"""`asraudit whitebox convert`: the embedded CTranslate2 Whisper as a transformers checkpoint.

The conversion is cached (``$ASRAUDIT_CACHE/whitebox/<name>``) and reused
until its source files change; ``--force`` rebuilds it.  The result loads
with ``WhisperForConditionalGeneration.from_pretrained(DIR)`` offline, and is
what ``asraudit steer`` and ``asraudit patch`` run.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from asraudit.data.paths import output_folder
from asraudit.errors import InputError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "whitebox",
        help="convert an embedded Whisper into a PyTorch (transformers) model for mechanism experiments",
        description="White-box Whisper: convert a CTranslate2 Whisper (an embedded model name or a directory) "
                    "into a transformers checkpoint, cached, loaded offline.",
    )
    actions = p.add_subparsers(dest="whitebox_action", metavar="ACTION", required=True)
    c = actions.add_parser("convert", help="convert (or find in the cache) and report the strict-load check")
    c.add_argument("model", help="embedded model name (whisper-tiny.en, whisper-base) or a CTranslate2 directory")
    c.add_argument("--cache", type=output_folder, metavar="DIR", help="cache root (default: $ASRAUDIT_CACHE or ~/.cache/asraudit)")
    c.add_argument("--force", action="store_true", help="convert again even if a matching conversion is cached")
    c.add_argument("--json", action="store_true", help="print the report as JSON")
    c.set_defaults(func=run_convert)


def _require_torch() -> None:
    import importlib.util

    missing = [m for m in ("torch", "transformers") if importlib.util.find_spec(m) is None]
    if missing:
        raise InputError(f"the white-box model needs {', '.join(missing)}: pip install 'asraudit[hf]'")


def run_convert(args: argparse.Namespace) -> int:
    _require_torch()
    from asraudit.models.whitebox.convert import convert, is_converted, load_converted
    from asraudit.models.whitebox.sources import embedded_source, source_from_dir

    path = Path(args.model).expanduser()
    source = source_from_dir(path) if path.is_dir() else embedded_source(args.model)
    cached = is_converted(source, args.cache) and not args.force
    directory = convert(source, args.cache, force=args.force)
    model, tokenizer, info = load_converted(directory)
    report = {
        "model": source.name,
        "directory": str(directory),
        "reused_from_cache": cached,
        "parameters": sum(p.numel() for p in model.parameters()),
        "vocabulary": len(tokenizer),
        "encoder_layers": model.config.encoder_layers,
        "decoder_layers": model.config.decoder_layers,
        "d_model": model.config.d_model,
        "missing_keys": sorted(info["missing_keys"]),
        "unexpected_keys": sorted(info["unexpected_keys"]),
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        state = "cached" if cached else "converted"
        print(f"{state} {report['model']} -> {report['directory']}")
        print(f"  {report['parameters']:,} parameters, {report['encoder_layers']}+{report['decoder_layers']} layers, "
              f"d_model {report['d_model']}, vocabulary {report['vocabulary']}")
        print(f"  strict load: {len(report['missing_keys'])} missing, {len(report['unexpected_keys'])} unexpected keys")
    return 0 if not (report["missing_keys"] or report["unexpected_keys"]) else 1
