# The two commands a newcomer types: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
# Extras the test suite exercises; each is optional for users.
EXTRAS ?= test,hf,ray,datasets,models
comma  := ,
STAMP  := $(VENV)/.installed-$(subst $(comma),-,$(EXTRAS))
# The compiled fast paths (optional C extensions, see docs/development.md): a changed source reinstalls,
# which rebuilds them in place.
CSRC   := $(wildcard src/asraudit/*/*.c src/asraudit/*/*.h)

.PHONY: venv test demo bench clean calibration-docs

$(STAMP): pyproject.toml $(CSRC)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[$(EXTRAS)]"
	touch $@

venv: $(STAMP)

# Two workers: the tests are independent (each writes under its own tmp_path; the shared model caches are written
# atomically).  Four were measured too (2 December 2026, idle cores): 928 s for 3,401 tests, against 899 s for
# 3,301 with two; the extra workers added disk waits (iowait 25% of the cores' time) rather than using the cores.
# Each worker keeps its own cores (tests/conftest.py), so the model libraries' thread pools do not take turns.
# Bytecode is cached even where PYTHONDONTWRITEBYTECODE is set: every worker and every child process otherwise
# compiled the sources and rewrote the test modules anew.
test: venv
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -q -n 2

# The demo audit: every probe on parliament-mini, clean models vs the model
# organism; ends by printing the path of the report.
demo: venv
	$(VENV)/bin/asraudit demo --out demo-out

# Every benchmark (normalizer, wer on 1,000,000 rows, wer scoring, refdis mining,
# the audit's own overhead, transcription on CPU), then each ratio with the peer's
# and asraudit's figures. The bench extra adds faster-whisper, the transcription
# peer; the mining peer is not on PyPI: make bench BENCH_ARGS='--reference-cli CMD'.
$(VENV)/.installed-bench: $(STAMP)
	$(PY) -m pip install -q -e ".[$(EXTRAS),bench]"
	touch $@

bench: $(VENV)/.installed-bench
	$(PY) benchmarks/run_all.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache
	find src -name '*.so' -delete

# After `asraudit calibrate --out DIR`: the calibration tables of README.md and docs/calibration.md regenerated
# from DIR/calibration.json (only the blocks between their markers; the rows kept in docs/calibration-detectors.json).
# With HELDOUT=1, after `asraudit calibrate --heldout --out DIR`: the held-out blocks of README.md and
# docs/calibration-heldout.md, the rows kept in docs/calibration-heldout-detectors.json.
CALIBRATION ?= asraudit-calibration
calibration-docs: venv
	$(PY) -m asraudit.demo.calibration_docs $(CALIBRATION) $(if $(HELDOUT),--heldout)
