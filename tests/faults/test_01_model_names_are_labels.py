"""Case 1: a model ``name`` in an audit spec is a label, never a path.

``openai/whisper-large-v3`` crashed with KeyError after transcription, and
``../../x`` or an absolute path wrote a prediction file outside ``out``;
``--check`` passed both.  Any Unicode label must work, files derive from a
safe, distinct stem inside ``out``, and the summary uses the labels.
"""

from __future__ import annotations

import json

from asraudit.data.paths import safe_stem, safe_stems

from conftest import files_under, write_preds

CLIPS = [(f"clip{i}", f"the cat sat on mat number {i}", f"the cat sat on the mat number {i}") for i in range(6)]
LABELS = ["openai/whisper-large-v3", "../../x", "/tmp/evil-abs", "名前 ✓", "a:b", "a?b"]


def _spec(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    corpus = write_preds(data / "corpus.jsonl", CLIPS)
    models = ""
    for i, label in enumerate(LABELS):
        preds = write_preds(data / f"m{i}.jsonl", [(c, r, h if i % 2 else r) for c, r, h in CLIPS])
        models += f"[[model]]\npredictions = {json.dumps(str(preds))}\nname = {json.dumps(label)}\npanel = true\n\n"
    spec = tmp_path / "spec" / "audit.toml"
    spec.parent.mkdir()
    spec.write_text(f'name = "labels"\nout = "out"\nbootstrap = 50\n\n[corpus]\npredictions = '
                    f'{json.dumps(str(corpus))}\n\n{models}', encoding="utf-8")
    return spec


def test_any_unicode_model_label_works_and_every_file_stays_inside_out(tmp_path, cli):
    spec = _spec(tmp_path)
    before = files_under(tmp_path)
    checked = cli("audit", spec, "--check")
    assert checked.code == 0, checked.err
    ran = cli("audit", spec, "--no-progress")
    assert ran.code == 0, ran.err
    out = spec.parent / "out"
    written = files_under(tmp_path) - before
    assert all(f.startswith("spec/out/") for f in written), sorted(written)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert list(summary["models"]) == LABELS
    preds = sorted(p.name for p in (out / "preds").glob("*.jsonl"))
    assert len(preds) == len(LABELS) and len(set(p.casefold() for p in preds)) == len(LABELS)
    assert not (tmp_path / "x.jsonl").exists() and not (tmp_path.parent / "x.jsonl").exists()


def test_labels_that_sanitize_alike_get_distinct_stems_and_safe_labels_keep_theirs():
    assert safe_stem("whisper-tiny.en") == "whisper-tiny.en"
    assert safe_stem("a:b") != safe_stem("a?b") and safe_stem("a:b").startswith("a_b-")
    assert safe_stem("openai/whisper-large-v3").startswith("openai--whisper-large-v3-")
    for label in LABELS + ["..", ".", "", "x" * 300]:
        stem = safe_stem(label)
        assert stem and "/" not in stem and not stem.startswith(".") and len(stem) < 100
    stems = safe_stems(["Tiny", "tiny"])
    assert stems["Tiny"].casefold() != stems["tiny"].casefold()
