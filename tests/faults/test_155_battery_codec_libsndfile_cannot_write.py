"""Case 155: a battery codec condition the machine's libsndfile cannot write (MP3 before libsndfile 1.1.0, Opus
before 1.0.29: a distribution's system libsndfile).

The spec was read and the donor sources tried, but the codec was first used when the battery reached the
condition, after the models had run every condition before it: ``ValueError: Invalid combination of format,
subtype and endian``, a traceback. ``check_sources`` (``battery`` before the corpus is read, ``audit --check``)
now encodes a tenth of a second of silence with each codec the spec names and refuses the one it cannot write.
An older libsndfile is stood in for by refusing MP3 where soundfile builds the format (its check asks
libsndfile's ``sf_format_check``, which is what fails there).
"""

from __future__ import annotations

import pytest
import soundfile
from conftest import battery_with_condition

from asraudit.errors import InputError
from asraudit.probes.battery import check_sources, parse_spec


@pytest.fixture()
def no_mp3(monkeypatch):
    real = soundfile._format_int

    def format_int(fmt, subtype, endian):
        if str(fmt).upper() == "MP3":
            raise ValueError("Invalid combination of format, subtype and endian")
        return real(fmt, subtype, endian)

    monkeypatch.setattr(soundfile, "_format_int", format_int)


MESSAGE = (f"[[condition]] #2 (x): codec mp3: the installed libsndfile ({soundfile.__libsndfile_version__}) cannot "
           "write MP3 MPEG_LAYER_III (Invalid combination of format, subtype and endian); it takes libsndfile 1.1.0 "
           "or later: update libsndfile (the soundfile wheel bundles a recent one), or choose another codec")


def test_battery_refuses_a_codec_it_cannot_write_before_any_condition_runs(tmp_path, cli, no_mp3):
    spec, argv = battery_with_condition(tmp_path, 'type = "codec"\ncodec = "mp3"\n')
    ran = cli(*argv)
    assert (ran.code, ran.error_lines) == (2, [f"asraudit: error: {spec}: {MESSAGE}"])
    assert "battery condition original" not in ran.err and not (tmp_path / "out").exists()


def test_the_codecs_it_writes_pass(no_mp3):
    data = {"condition": [{"name": "original"}, {"name": "x", "type": "codec", "codec": "mp3"}]}
    with pytest.raises(InputError) as err:
        check_sources(parse_spec(data, "b.toml"))
    assert str(err.value) == f"b.toml: {MESSAGE}"
    for codec in ("opus", "vorbis"):
        data["condition"][1]["codec"] = codec
        check_sources(parse_spec(data, "b.toml"))
