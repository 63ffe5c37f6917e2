/* The reference-error miner's cell layout in C: what refdis_cells.HypCells computes from one alignment.
 *
 * A hypothesis aligned to an n-token reference is cut into 2n+1 cells (gap 0, token 0, gap 1, ..., token n-1,
 * gap n); refdis_cells.py says why.  The alignment is rapidfuzz's opcodes as a list of 5-tuples
 * (tag, i1, i2, j1, j2), which the Python class reads in three loops this module runs instead:
 *
 *   layout(ops, n_hyp) -> (hits, bounds)
 *       hits: the reference tokens in "equal" blocks;
 *       bounds: 2n+2 hypothesis positions, cell c holding hyp[bounds[c]:bounds[c+1]].  Opcode after opcode,
 *       a block of a reference tokens against b hypothesis words gives its first min(a, b) tokens one word
 *       each (bounds j1, j1+1, j1+1, j1+2, ..., j1+k), its further a - b tokens (where a > b) none (both
 *       bounds j1+b); further words fall in the gap after it.  The list ends with n_hyp.
 *   diff(ops, bounds) -> list of bools, one per cell: a gap holding words, a token outside an "equal" block.
 *   regions(diff) -> [(lo, hi), ...]: the maximal runs of true cells.
 *   proposals(diff, bounds, hyp, ref, max_join) -> the edits a panel member proposes (refdis_votes._proposals),
 *       each as its canonical key (refdis_votes.canonical): (start, end, audio words).
 *   followers(ref, start, end, audio, hyps, bounds, order, allowed, window) -> the members that follow an edit
 *       (reading "audio" over the edit and window reference tokens each side), read in order, or None once
 *       more than allowed have not (refdis_votes.candidates' votes).
 *   texts(hyps, bounds, lo, hi) -> [" ".join(hyp[b[lo]:b[hi]]) for each hyp, b]: what the models wrote there.
 *   verdicts(hyps, bounds, eligible, lo, hi, ref_words, audio_words, apart) -> reading (below) of each, or
 *       "ineligible" where eligible is false.
 *   distance(a, b) -> rapidfuzz's Levenshtein.distance of two word tuples (keyed as below).
 *   reading(hyp, bounds, lo, hi, ref_words, audio_words, apart) -> "audio", "ref" or "other":
 *       refdis_cells.reading_of of the words hyp[bounds[lo]:bounds[hi]] at a place whose two versions are
 *       ref_words and audio_words, apart their distance (-1: computed here).  The words are compared with
 *       the versions as Python compares tuples (==), and the distances are rapidfuzz's Levenshtein.distance
 *       of word sequences: it compares words by a key, a one-character str's code point and anything else's
 *       hash(), and so does this module (a test checks the two on words whose keys collide on purpose).
 *
 * The Python code stays the reference and the fallback where this module is not built; tests compare them
 * (tests/test_refdis_fast.py).  Values are checked as the Python code's slices would need them to be; ops that
 * are not 5-tuples of a str and four ints in range raise.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct {
    int equal;
    Py_ssize_t i1, i2, j1, j2;
} Op;

/* One opcode read into *op; -1 with an exception set when it is not (str, int, int, int, int) in order. */
static int
read_op(PyObject *item, Op *op)
{
    if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 5) {
        PyErr_SetString(PyExc_TypeError, "an opcode is a 5-tuple (tag, i1, i2, j1, j2)");
        return -1;
    }
    PyObject *tag = PyTuple_GET_ITEM(item, 0);
    if (!PyUnicode_Check(tag)) {
        PyErr_SetString(PyExc_TypeError, "an opcode's tag is a str");
        return -1;
    }
    op->equal = PyUnicode_CompareWithASCIIString(tag, "equal") == 0;
    Py_ssize_t v[4];
    for (int k = 0; k < 4; k++) {
        v[k] = PyLong_AsSsize_t(PyTuple_GET_ITEM(item, k + 1));
        if (v[k] == -1 && PyErr_Occurred())
            return -1;
    }
    op->i1 = v[0];
    op->i2 = v[1];
    op->j1 = v[2];
    op->j2 = v[3];
    if (op->i1 < 0 || op->i2 < op->i1 || op->j1 < 0 || op->j2 < op->j1) {
        PyErr_SetString(PyExc_ValueError, "an opcode's spans run backwards");
        return -1;
    }
    return 0;
}

/* Append the int v to list; -1 on failure. */
static int
append_int(PyObject *list, Py_ssize_t v)
{
    PyObject *x = PyLong_FromSsize_t(v);
    if (x == NULL)
        return -1;
    int rc = PyList_Append(list, x);
    Py_DECREF(x);
    return rc;
}

static PyObject *
layout(PyObject *self, PyObject *args)
{
    PyObject *ops;
    Py_ssize_t n_hyp;
    if (!PyArg_ParseTuple(args, "On:layout", &ops, &n_hyp))
        return NULL;
    PyObject *seq = PySequence_Fast(ops, "ops is a sequence of opcodes");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n_ops = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    PyObject *bounds = PyList_New(0);
    if (bounds == NULL)
        goto fail;
    Py_ssize_t hits = 0;
    if (append_int(bounds, 0) < 0)
        goto fail;
    for (Py_ssize_t k = 0; k < n_ops; k++) {
        Op op;
        if (read_op(items[k], &op) < 0)
            goto fail;
        Py_ssize_t a = op.i2 - op.i1, b = op.j2 - op.j1;
        if (op.equal)
            hits += a;
        Py_ssize_t one = a <= b ? a : b; /* tokens that get one word each */
        if (op.j1 + one > n_hyp) {
            PyErr_SetString(PyExc_ValueError, "an opcode reaches past the hypothesis");
            goto fail;
        }
        for (Py_ssize_t t = 0; t < one; t++) {
            if (append_int(bounds, op.j1 + t) < 0 || append_int(bounds, op.j1 + t + 1) < 0)
                goto fail;
        }
        for (Py_ssize_t t = 0; t < 2 * (a - one); t++) { /* deleted tokens: empty, at j1 + b */
            if (append_int(bounds, op.j1 + b) < 0)
                goto fail;
        }
    }
    if (append_int(bounds, n_hyp) < 0)
        goto fail;
    Py_DECREF(seq);
    PyObject *out = Py_BuildValue("(nN)", hits, bounds);
    return out;
fail:
    Py_XDECREF(bounds);
    Py_DECREF(seq);
    return NULL;
}

/* One editop (tag, src_pos, dest_pos) into *kind ('r'eplace, 'i'nsert, 'd'elete), *src, *dest; -1 on error. */
static int
read_edit(PyObject *item, char *kind, Py_ssize_t *src, Py_ssize_t *dest)
{
    if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 3) {
        PyErr_SetString(PyExc_TypeError, "an editop is a 3-tuple (tag, src_pos, dest_pos)");
        return -1;
    }
    PyObject *tag = PyTuple_GET_ITEM(item, 0);
    if (!PyUnicode_Check(tag)) {
        PyErr_SetString(PyExc_TypeError, "an editop's tag is a str");
        return -1;
    }
    if (PyUnicode_CompareWithASCIIString(tag, "replace") == 0)
        *kind = 'r';
    else if (PyUnicode_CompareWithASCIIString(tag, "insert") == 0)
        *kind = 'i';
    else if (PyUnicode_CompareWithASCIIString(tag, "delete") == 0)
        *kind = 'd';
    else {
        PyErr_SetString(PyExc_ValueError, "an editop's tag is replace, insert or delete");
        return -1;
    }
    *src = PyLong_AsSsize_t(PyTuple_GET_ITEM(item, 1));
    if (*src == -1 && PyErr_Occurred())
        return -1;
    *dest = PyLong_AsSsize_t(PyTuple_GET_ITEM(item, 2));
    if (*dest == -1 && PyErr_Occurred())
        return -1;
    return 0;
}

/* layout_edits(editops, n_ref, n_hyp) -> (hits, bounds): ``layout`` of the opcodes these editops make
 * (rapidfuzz's Levenshtein.opcodes is its editops' as_opcodes(): the stretches between editops equal, runs of
 * one kind merged), read from the editops themselves: a token between editops and a replaced token get one
 * word each, a deleted token none, an inserted word falls in the gap before the token it precedes. */
static PyObject *
layout_edits(PyObject *self, PyObject *args)
{
    PyObject *edits;
    Py_ssize_t n_ref, n_hyp;
    if (!PyArg_ParseTuple(args, "O!nn:layout_edits", &PyList_Type, &edits, &n_ref, &n_hyp))
        return NULL;
    if (n_ref < 0 || n_hyp < 0) {
        PyErr_SetString(PyExc_ValueError, "negative lengths");
        return NULL;
    }
    PyObject *bounds = PyList_New(2 * n_ref + 2);
    if (bounds == NULL)
        return NULL;
    Py_ssize_t i = 0, j = 0, hits = 0, c = 0, n_edits = PyList_GET_SIZE(edits);
#define PUT(v)                                                                                                        \
    do {                                                                                                              \
        PyObject *x_ = PyLong_FromSsize_t(v);                                                                         \
        if (x_ == NULL)                                                                                               \
            goto fail;                                                                                                \
        PyList_SET_ITEM(bounds, c++, x_);                                                                             \
    } while (0)
    PUT(0);
    for (Py_ssize_t k = 0; k <= n_edits; k++) {
        char kind = 0;
        Py_ssize_t src = n_ref, dest = n_hyp;
        if (k < n_edits && read_edit(PyList_GET_ITEM(edits, k), &kind, &src, &dest) < 0)
            goto fail;
        /* the equal stretch before it: as many tokens as words, or the editops do not describe these lengths */
        if (src < i || dest < j || src - i != dest - j || src > n_ref || dest > n_hyp) {
            PyErr_SetString(PyExc_ValueError, "the editops do not fit the reference and hypothesis");
            goto fail;
        }
        hits += src - i;
        for (; i < src; i++, j++) {
            PUT(j);
            PUT(j + 1);
        }
        if (kind == 'r' || kind == 'd') {
            if (i >= n_ref || (kind == 'r' && j >= n_hyp)) {
                PyErr_SetString(PyExc_ValueError, "the editops do not fit the reference and hypothesis");
                goto fail;
            }
            PUT(j);
            PUT(kind == 'r' ? j + 1 : j);
            i++;
            if (kind == 'r')
                j++;
        }
        else if (kind == 'i') {
            if (j >= n_hyp) {
                PyErr_SetString(PyExc_ValueError, "the editops do not fit the reference and hypothesis");
                goto fail;
            }
            j++;
        }
    }
    PUT(n_hyp);
#undef PUT
    return Py_BuildValue("(nN)", hits, bounds);
fail:
    /* the list's unset items are NULL, which its deallocation skips */
    Py_DECREF(bounds);
    return NULL;
}

/* diff_edits(editops, bounds) -> ``diff`` of the cells: a gap holding words, a token replaced or deleted. */
static PyObject *
diff_edits(PyObject *self, PyObject *args)
{
    PyObject *edits, *bounds;
    if (!PyArg_ParseTuple(args, "O!O!:diff_edits", &PyList_Type, &edits, &PyList_Type, &bounds))
        return NULL;
    Py_ssize_t n_cells = PyList_GET_SIZE(bounds) - 1;
    if (n_cells < 1 || n_cells % 2 == 0) {
        PyErr_SetString(PyExc_ValueError, "bounds is not a layout's (2n+2 entries)");
        return NULL;
    }
    PyObject *out = PyList_New(n_cells);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t c = 0; c < n_cells; c++) {
        int value = 0;
        if (c % 2 == 0) {
            Py_ssize_t lo = PyLong_AsSsize_t(PyList_GET_ITEM(bounds, c));
            if (lo == -1 && PyErr_Occurred())
                goto fail;
            Py_ssize_t hi = PyLong_AsSsize_t(PyList_GET_ITEM(bounds, c + 1));
            if (hi == -1 && PyErr_Occurred())
                goto fail;
            value = lo < hi;
        }
        PyList_SET_ITEM(out, c, Py_NewRef(value ? Py_True : Py_False));
    }
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(edits); k++) {
        char kind;
        Py_ssize_t src, dest;
        if (read_edit(PyList_GET_ITEM(edits, k), &kind, &src, &dest) < 0)
            goto fail;
        if (kind == 'i')
            continue;
        if (src < 0 || 2 * src + 1 >= n_cells) {
            PyErr_SetString(PyExc_ValueError, "an editop reaches past the reference");
            goto fail;
        }
        PyObject *old = PyList_GET_ITEM(out, 2 * src + 1);
        PyList_SET_ITEM(out, 2 * src + 1, Py_NewRef(Py_True));
        Py_DECREF(old);
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

static PyObject *
diff(PyObject *self, PyObject *args)
{
    PyObject *ops, *bounds;
    if (!PyArg_ParseTuple(args, "OO!:diff", &ops, &PyList_Type, &bounds))
        return NULL;
    Py_ssize_t n_cells = PyList_GET_SIZE(bounds) - 1;
    if (n_cells < 0) {
        PyErr_SetString(PyExc_ValueError, "bounds is empty");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(ops, "ops is a sequence of opcodes");
    if (seq == NULL)
        return NULL;
    PyObject *out = PyList_New(n_cells);
    if (out == NULL) {
        Py_DECREF(seq);
        return NULL;
    }
    /* gaps: words in them; tokens: true until an "equal" block says otherwise */
    for (Py_ssize_t c = 0; c < n_cells; c++) {
        int value = 1;
        if (c % 2 == 0) {
            Py_ssize_t lo = PyLong_AsSsize_t(PyList_GET_ITEM(bounds, c));
            if (lo == -1 && PyErr_Occurred())
                goto fail;
            Py_ssize_t hi = PyLong_AsSsize_t(PyList_GET_ITEM(bounds, c + 1));
            if (hi == -1 && PyErr_Occurred())
                goto fail;
            value = lo < hi;
        }
        PyObject *v = value ? Py_True : Py_False;
        Py_INCREF(v);
        PyList_SET_ITEM(out, c, v);
    }
    Py_ssize_t n_ops = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t k = 0; k < n_ops; k++) {
        Op op;
        if (read_op(items[k], &op) < 0)
            goto fail;
        if (!op.equal)
            continue;
        if (op.i2 > op.i1 && 2 * op.i2 > n_cells) { /* the last token cell, 2 * i2 - 1, past the end */
            PyErr_SetString(PyExc_ValueError, "an opcode reaches past the reference");
            goto fail;
        }
        for (Py_ssize_t i = op.i1; i < op.i2; i++) {
            PyObject *old = PyList_GET_ITEM(out, 2 * i + 1);
            Py_INCREF(Py_False);
            PyList_SET_ITEM(out, 2 * i + 1, Py_False);
            Py_DECREF(old);
        }
    }
    Py_DECREF(seq);
    return out;
fail:
    Py_DECREF(out);
    Py_DECREF(seq);
    return NULL;
}

static PyObject *
regions(PyObject *self, PyObject *arg)
{
    PyObject *seq = PySequence_Fast(arg, "diff is a sequence of bools");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    PyObject *out = PyList_New(0);
    if (out == NULL)
        goto fail;
    Py_ssize_t c = 0;
    while (c < n) {
        int t = PyObject_IsTrue(items[c]);
        if (t < 0)
            goto fail;
        if (!t) {
            c++;
            continue;
        }
        Py_ssize_t lo = c++;
        while (c < n) {
            t = PyObject_IsTrue(items[c]);
            if (t < 0)
                goto fail;
            if (!t)
                break;
            c++;
        }
        PyObject *pair = Py_BuildValue("(nn)", lo, c);
        if (pair == NULL)
            goto fail;
        int rc = PyList_Append(out, pair);
        Py_DECREF(pair);
        if (rc < 0)
            goto fail;
    }
    Py_DECREF(seq);
    return out;
fail:
    Py_XDECREF(out);
    Py_DECREF(seq);
    return NULL;
}

/* ------------------------------------------------------------------ reading */

static PyObject *s_audio, *s_ref, *s_other, *s_ineligible, *s_space; /* the verdicts, interned; " " */

/* rapidfuzz's key of a word in a sequence: a one-character str is its code point, anything else its hash. */
static int
word_key(PyObject *w, unsigned long long *key)
{
    if (PyUnicode_Check(w) && PyUnicode_GET_LENGTH(w) == 1) {
        *key = (unsigned long long)PyUnicode_READ_CHAR(w, 0);
        return 0;
    }
    Py_hash_t h = PyObject_Hash(w);
    if (h == -1 && PyErr_Occurred())
        return -1;
    *key = (unsigned long long)h;
    return 0;
}

#define SMALL 64

/* Levenshtein distance (unit costs) of two key arrays; -1 when out of memory (exception set). */
static Py_ssize_t
key_distance(const unsigned long long *a, Py_ssize_t na, const unsigned long long *b, Py_ssize_t nb)
{
    if (na == 0)
        return nb;
    if (nb == 0)
        return na;
    Py_ssize_t small[SMALL + 1] = {0};
    Py_ssize_t *row = small;
    if (nb + 1 > SMALL + 1) {
        row = PyMem_New(Py_ssize_t, nb + 1);
        if (row == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    }
    for (Py_ssize_t j = 0; j <= nb; j++)
        row[j] = j;
    for (Py_ssize_t i = 1; i <= na; i++) {
        Py_ssize_t diag = row[0];
        row[0] = i;
        for (Py_ssize_t j = 1; j <= nb; j++) {
            Py_ssize_t up = row[j];
            Py_ssize_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    Py_ssize_t d = row[nb];
    if (row != small)
        PyMem_Free(row);
    return d;
}

/* The keys of items[0:n] into *out (a caller buffer of SMALL, or allocated); -1 on failure. */
static int
keys_of(PyObject **items, Py_ssize_t n, unsigned long long *buffer, unsigned long long **out)
{
    unsigned long long *keys = buffer;
    if (n > SMALL) {
        keys = PyMem_New(unsigned long long, n);
        if (keys == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (word_key(items[i], &keys[i]) < 0) {
            if (keys != buffer)
                PyMem_Free(keys);
            return -1;
        }
    }
    *out = keys;
    return 0;
}

/* a[0:na] == b[0:nb], as Python compares tuples: 1, 0, or -1 with an exception set. */
static int
same_words(PyObject **a, Py_ssize_t na, PyObject **b, Py_ssize_t nb)
{
    if (na != nb)
        return 0;
    for (Py_ssize_t i = 0; i < na; i++) {
        int eq = PyObject_RichCompareBool(a[i], b[i], Py_EQ);
        if (eq <= 0)
            return eq;
    }
    return 1;
}

/* reading_of of words[0:n] at a place whose versions are rw[0:n_rw] (as written) and aw[0:n_aw] (edited),
 * *apart their distance (computed and stored here when negative and needed): a new reference to the
 * verdict, or NULL with an exception set. */
static PyObject *
read_words(PyObject **words, Py_ssize_t n, PyObject **rw, Py_ssize_t n_rw, PyObject **aw, Py_ssize_t n_aw,
           Py_ssize_t *apart)
{
    int eq = same_words(words, n, aw, n_aw);
    if (eq < 0)
        return NULL;
    if (eq)
        return Py_NewRef(s_audio);
    eq = same_words(words, n, rw, n_rw);
    if (eq < 0)
        return NULL;
    if (eq)
        return Py_NewRef(s_ref);
    unsigned long long wb[SMALL], rb[SMALL], ab[SMALL];
    unsigned long long *wk = NULL, *rk = NULL, *ak = NULL;
    PyObject *out = NULL;
    if (keys_of(words, n, wb, &wk) < 0)
        goto done;
    if (keys_of(rw, n_rw, rb, &rk) < 0)
        goto done;
    if (keys_of(aw, n_aw, ab, &ak) < 0)
        goto done;
    Py_ssize_t to_ref = key_distance(wk, n, rk, n_rw);
    Py_ssize_t to_audio = key_distance(wk, n, ak, n_aw);
    if (*apart < 0)
        *apart = key_distance(rk, n_rw, ak, n_aw);
    if (to_ref < 0 || to_audio < 0 || *apart < 0)
        goto done;
    if (to_ref == to_audio + *apart)
        out = Py_NewRef(s_audio);
    else if (to_audio == to_ref + *apart)
        out = Py_NewRef(s_ref);
    else
        out = Py_NewRef(s_other);
done:
    if (wk != NULL && wk != wb)
        PyMem_Free(wk);
    if (rk != NULL && rk != rb)
        PyMem_Free(rk);
    if (ak != NULL && ak != ab)
        PyMem_Free(ak);
    return out;
}

/* The words hyp[bounds[lo]:bounds[hi]] as *words, *n (borrowed from the tuple); -1 with an exception set. */
static int
cell_words(PyObject *hyp, PyObject *bounds, Py_ssize_t lo, Py_ssize_t hi, PyObject ***words, Py_ssize_t *n)
{
    if (!PyTuple_Check(hyp) || !PyList_Check(bounds)) {
        PyErr_SetString(PyExc_TypeError, "a hypothesis is a tuple of words and its bounds a list");
        return -1;
    }
    if (lo < 0 || hi < lo || hi >= PyList_GET_SIZE(bounds)) {
        PyErr_SetString(PyExc_IndexError, "cells out of range");
        return -1;
    }
    Py_ssize_t start = PyLong_AsSsize_t(PyList_GET_ITEM(bounds, lo));
    if (start == -1 && PyErr_Occurred())
        return -1;
    Py_ssize_t end = PyLong_AsSsize_t(PyList_GET_ITEM(bounds, hi));
    if (end == -1 && PyErr_Occurred())
        return -1;
    Py_ssize_t n_hyp = PyTuple_GET_SIZE(hyp);
    /* hyp[start:end] as a slice takes it: clamped, empty when reversed */
    if (start < 0)
        start = 0;
    if (end > n_hyp)
        end = n_hyp;
    if (end < start)
        end = start;
    *words = &PyTuple_GET_ITEM(hyp, start);
    *n = end - start;
    return 0;
}

/* reading_of of hyp[bounds[lo]:bounds[hi]] (a new reference to a verdict, or NULL with an exception set) */
static PyObject *
read_one(PyObject *hyp, PyObject *bounds, Py_ssize_t lo, Py_ssize_t hi, PyObject *ref_words, PyObject *audio_words,
         Py_ssize_t apart)
{
    if (!PyTuple_Check(ref_words) || !PyTuple_Check(audio_words)) {
        PyErr_SetString(PyExc_TypeError, "reading takes a tuple hyp, a list of bounds and two tuples of words");
        return NULL;
    }
    PyObject **words;
    Py_ssize_t n;
    if (cell_words(hyp, bounds, lo, hi, &words, &n) < 0)
        return NULL;
    return read_words(words, n, &PyTuple_GET_ITEM(ref_words, 0), PyTuple_GET_SIZE(ref_words),
                      &PyTuple_GET_ITEM(audio_words, 0), PyTuple_GET_SIZE(audio_words), &apart);
}

/* followers(ref, start, end, audio, hyps, bounds, order, allowed, window) -> the members (indices into hyps and
 * bounds) that follow the edit (start, end, audio), read in ``order``, or None once more than ``allowed`` have
 * not: refdis_votes.candidates' reading loop over the window of ``window`` reference tokens each side. */
static PyObject *
followers(PyObject *self, PyObject *args)
{
    PyObject *ref, *audio, *hyps, *bounds, *order;
    Py_ssize_t start, end, allowed, window;
    if (!PyArg_ParseTuple(args, "O!nnO!O!O!O!nn:followers", &PyTuple_Type, &ref, &start, &end, &PyTuple_Type, &audio,
                          &PyList_Type, &hyps, &PyList_Type, &bounds, &PyList_Type, &order, &allowed, &window))
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(ref), n_audio = PyTuple_GET_SIZE(audio);
    if (start < 0 || end < start || end > n || window < 0) {
        PyErr_SetString(PyExc_IndexError, "the edit is not within the reference");
        return NULL;
    }
    if (PyList_GET_SIZE(bounds) != PyList_GET_SIZE(hyps)) {
        PyErr_SetString(PyExc_ValueError, "hyps and bounds differ in length");
        return NULL;
    }
    Py_ssize_t ws = start - window > 0 ? start - window : 0, we = end + window < n ? end + window : n;
    Py_ssize_t lo = ws == 0 ? 0 : 2 * ws + 1, hi = we == n ? 2 * n + 1 : 2 * we;
    PyObject **rw = &PyTuple_GET_ITEM(ref, ws);
    Py_ssize_t n_rw = we - ws, n_aw = (start - ws) + n_audio + (we - end);
    PyObject *small[SMALL];
    PyObject **aw = small;
    if (n_aw > SMALL) {
        aw = PyMem_New(PyObject *, n_aw);
        if (aw == NULL)
            return PyErr_NoMemory();
    }
    Py_ssize_t k = 0;
    for (Py_ssize_t i = ws; i < start; i++)
        aw[k++] = PyTuple_GET_ITEM(ref, i);
    for (Py_ssize_t i = 0; i < n_audio; i++)
        aw[k++] = PyTuple_GET_ITEM(audio, i);
    for (Py_ssize_t i = end; i < we; i++)
        aw[k++] = PyTuple_GET_ITEM(ref, i);
    PyObject *out = PyList_New(0);
    Py_ssize_t apart = -1, refused = 0;
    if (out == NULL)
        goto done;
    for (Py_ssize_t j = 0; j < PyList_GET_SIZE(order); j++) {
        Py_ssize_t m = PyLong_AsSsize_t(PyList_GET_ITEM(order, j));
        if (m == -1 && PyErr_Occurred())
            goto fail;
        if (m < 0 || m >= PyList_GET_SIZE(hyps)) {
            PyErr_SetString(PyExc_IndexError, "a member out of range");
            goto fail;
        }
        PyObject **words;
        Py_ssize_t n_words;
        if (cell_words(PyList_GET_ITEM(hyps, m), PyList_GET_ITEM(bounds, m), lo, hi, &words, &n_words) < 0)
            goto fail;
        PyObject *v = read_words(words, n_words, rw, n_rw, aw, n_aw, &apart);
        if (v == NULL)
            goto fail;
        int follows = v == s_audio;
        Py_DECREF(v);
        if (follows) {
            if (PyList_Append(out, PyList_GET_ITEM(order, j)) < 0)
                goto fail;
        }
        else if (++refused > allowed) {
            Py_DECREF(out);
            out = Py_NewRef(Py_None);
            goto done;
        }
    }
    goto done;
fail:
    Py_CLEAR(out);
done:
    if (aw != small)
        PyMem_Free(aw);
    return out;
}

static PyObject *
reading(PyObject *self, PyObject *args)
{
    PyObject *hyp, *bounds, *ref_words, *audio_words;
    Py_ssize_t lo, hi, apart;
    if (!PyArg_ParseTuple(args, "OOnnOOn:reading", &hyp, &bounds, &lo, &hi, &ref_words, &audio_words, &apart))
        return NULL;
    return read_one(hyp, bounds, lo, hi, ref_words, audio_words, apart);
}

/* verdicts(hyps, bounds, eligible, lo, hi, ref_words, audio_words, apart) -> one verdict per hypothesis:
 * "ineligible" where eligible[i] is false, else read_one of hyps[i], bounds[i]. */
static PyObject *
verdicts(PyObject *self, PyObject *args)
{
    PyObject *hyps, *bounds, *eligible, *ref_words, *audio_words;
    Py_ssize_t lo, hi, apart;
    if (!PyArg_ParseTuple(args, "O!O!O!nnOOn:verdicts", &PyList_Type, &hyps, &PyList_Type, &bounds, &PyList_Type,
                          &eligible, &lo, &hi, &ref_words, &audio_words, &apart))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(hyps);
    if (PyList_GET_SIZE(bounds) != n || PyList_GET_SIZE(eligible) != n) {
        PyErr_SetString(PyExc_ValueError, "hyps, bounds and eligible differ in length");
        return NULL;
    }
    PyObject *out = PyList_New(n);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        int ok = PyObject_IsTrue(PyList_GET_ITEM(eligible, i));
        PyObject *v;
        if (ok < 0) {
            Py_DECREF(out);
            return NULL;
        }
        if (!ok)
            v = Py_NewRef(s_ineligible);
        else
            v = read_one(PyList_GET_ITEM(hyps, i), PyList_GET_ITEM(bounds, i), lo, hi, ref_words, audio_words,
                         apart);
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, v);
    }
    return out;
}

/* texts(hyps, bounds, lo, hi) -> " ".join(hyps[i][bounds[i][lo]:bounds[i][hi]]) for each i */
static PyObject *
texts(PyObject *self, PyObject *args)
{
    PyObject *hyps, *bounds;
    Py_ssize_t lo, hi;
    if (!PyArg_ParseTuple(args, "O!O!nn:texts", &PyList_Type, &hyps, &PyList_Type, &bounds, &lo, &hi))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(hyps);
    if (PyList_GET_SIZE(bounds) != n) {
        PyErr_SetString(PyExc_ValueError, "hyps and bounds differ in length");
        return NULL;
    }
    PyObject *out = PyList_New(n);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *hyp = PyList_GET_ITEM(hyps, i), *b = PyList_GET_ITEM(bounds, i);
        if (!PyTuple_Check(hyp) || !PyList_Check(b)) {
            PyErr_SetString(PyExc_TypeError, "texts takes tuples of words and lists of bounds");
            goto fail;
        }
        if (lo < 0 || hi < lo || hi >= PyList_GET_SIZE(b)) {
            PyErr_SetString(PyExc_IndexError, "cells out of range");
            goto fail;
        }
        Py_ssize_t start = PyLong_AsSsize_t(PyList_GET_ITEM(b, lo));
        if (start == -1 && PyErr_Occurred())
            goto fail;
        Py_ssize_t end = PyLong_AsSsize_t(PyList_GET_ITEM(b, hi));
        if (end == -1 && PyErr_Occurred())
            goto fail;
        PyObject *words = PyTuple_GetSlice(hyp, start, end);
        if (words == NULL)
            goto fail;
        PyObject *text = PyUnicode_Join(s_space, words);
        Py_DECREF(words);
        if (text == NULL)
            goto fail;
        PyList_SET_ITEM(out, i, text);
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

static PyObject *
distance(PyObject *self, PyObject *args)
{
    PyObject *a, *b;
    if (!PyArg_ParseTuple(args, "O!O!:distance", &PyTuple_Type, &a, &PyTuple_Type, &b))
        return NULL;
    unsigned long long ab_[SMALL], bb_[SMALL];
    unsigned long long *ak = NULL, *bk = NULL;
    PyObject *out = NULL;
    Py_ssize_t na = PyTuple_GET_SIZE(a), nb = PyTuple_GET_SIZE(b);
    if (keys_of(&PyTuple_GET_ITEM(a, 0), na, ab_, &ak) < 0)
        goto done;
    if (keys_of(&PyTuple_GET_ITEM(b, 0), nb, bb_, &bk) < 0)
        goto done;
    Py_ssize_t d = key_distance(ak, na, bk, nb);
    if (d >= 0)
        out = PyLong_FromSsize_t(d);
done:
    if (ak != NULL && ak != ab_)
        PyMem_Free(ak);
    if (bk != NULL && bk != bb_)
        PyMem_Free(bk);
    return out;
}

/* ---------------------------------------------------------------- proposals */

/* refdis_votes.canonical of (start, end, audio[0:n_audio]) as a new (start, end, audio) tuple; NULL on error.
 * An insertion moves left while its last word equals the reference word before it (each step puts that
 * reference word in front and drops the last: the objects canonical's tuples hold), a deletion while the
 * reference word before it equals its last one. */
static PyObject *
canonical_key(PyObject *ref, Py_ssize_t start, Py_ssize_t end, PyObject **audio, Py_ssize_t n_audio)
{
    if (start > PyTuple_GET_SIZE(ref) || end > PyTuple_GET_SIZE(ref)) {
        PyErr_SetString(PyExc_IndexError, "a proposal reaches past the reference");
        return NULL;
    }
    PyObject *small[SMALL];
    PyObject **cur = small;
    if (n_audio > SMALL) {
        cur = PyMem_New(PyObject *, n_audio);
        if (cur == NULL)
            return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n_audio; i++)
        cur[i] = audio[i];
    PyObject *out = NULL, *words = NULL;
    if (start == end) {
        while (start > 0 && n_audio > 0) {
            int eq = PyObject_RichCompareBool(cur[n_audio - 1], PyTuple_GET_ITEM(ref, start - 1), Py_EQ);
            if (eq < 0)
                goto done;
            if (!eq)
                break;
            for (Py_ssize_t i = n_audio - 1; i > 0; i--)
                cur[i] = cur[i - 1];
            cur[0] = PyTuple_GET_ITEM(ref, start - 1);
            start--;
        }
        end = start;
    }
    else if (n_audio == 0) {
        while (start > 0) {
            int eq = PyObject_RichCompareBool(PyTuple_GET_ITEM(ref, start - 1), PyTuple_GET_ITEM(ref, end - 1), Py_EQ);
            if (eq < 0)
                goto done;
            if (!eq)
                break;
            start--;
            end--;
        }
    }
    words = PyTuple_New(n_audio);
    if (words == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n_audio; i++)
        PyTuple_SET_ITEM(words, i, Py_NewRef(cur[i]));
    out = Py_BuildValue("(nnN)", start, end, words);
done:
    if (cur != small)
        PyMem_Free(cur);
    return out;
}

/* Append canonical_key of cells lo..hi to out; -1 on error. */
static int
add_proposal(PyObject *out, PyObject *hyp, PyObject *bounds, PyObject *ref, Py_ssize_t lo, Py_ssize_t hi)
{
    Py_ssize_t n_hyp = PyTuple_GET_SIZE(hyp);
    Py_ssize_t a = PyLong_AsSsize_t(PyList_GET_ITEM(bounds, lo));
    if (a == -1 && PyErr_Occurred())
        return -1;
    Py_ssize_t b = PyLong_AsSsize_t(PyList_GET_ITEM(bounds, hi));
    if (b == -1 && PyErr_Occurred())
        return -1;
    /* hyp[a:b] as a slice takes it */
    if (a < 0)
        a = 0;
    if (b > n_hyp)
        b = n_hyp;
    if (b < a)
        b = a;
    PyObject *key = canonical_key(ref, lo / 2, hi / 2, &PyTuple_GET_ITEM(hyp, a), b - a);
    if (key == NULL)
        return -1;
    int rc = PyList_Append(out, key);
    Py_DECREF(key);
    return rc;
}

/* proposals(diff, bounds, hyp, ref, max_join) -> refdis_votes._proposals of the cells, each as its canonical
 * key (start, end, audio): the regions (runs of differing cells), grouped where only an empty gap separates
 * two differing tokens (a region starting at a token cell right after the previous one ends), and per group
 * each run of up to max_join neighbouring regions, then the whole group where it has more. */
static PyObject *
proposals(PyObject *self, PyObject *args)
{
    PyObject *diff, *bounds, *hyp, *ref;
    Py_ssize_t max_join;
    if (!PyArg_ParseTuple(args, "O!O!O!O!n:proposals", &PyList_Type, &diff, &PyList_Type, &bounds, &PyTuple_Type,
                          &hyp, &PyTuple_Type, &ref, &max_join))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(diff);
    if (PyList_GET_SIZE(bounds) < n + 1) {
        PyErr_SetString(PyExc_ValueError, "bounds is shorter than the cells");
        return NULL;
    }
    /* the regions, as (lo, hi) pairs */
    Py_ssize_t *reg = PyMem_New(Py_ssize_t, n + 2);
    if (reg == NULL)
        return PyErr_NoMemory();
    Py_ssize_t n_reg = 0, c = 0;
    PyObject *out = NULL;
    while (c < n) {
        int t = PyObject_IsTrue(PyList_GET_ITEM(diff, c));
        if (t < 0)
            goto done;
        if (!t) {
            c++;
            continue;
        }
        Py_ssize_t lo = c++;
        while (c < n) {
            t = PyObject_IsTrue(PyList_GET_ITEM(diff, c));
            if (t < 0)
                goto done;
            if (!t)
                break;
            c++;
        }
        reg[n_reg++] = lo;
        reg[n_reg++] = c;
    }
    n_reg /= 2;
    out = PyList_New(0);
    if (out == NULL)
        goto done;
    Py_ssize_t g = 0;
    while (g < n_reg) {
        Py_ssize_t k = 1; /* the group: regions g .. g + k - 1 */
        while (g + k < n_reg && reg[2 * (g + k - 1) + 1] + 1 == reg[2 * (g + k)] && reg[2 * (g + k)] % 2 == 1)
            k++;
        for (Py_ssize_t i = 0; i < k; i++) {
            Py_ssize_t last = i + max_join < k ? i + max_join : k;
            for (Py_ssize_t j = i; j < last; j++) {
                if (add_proposal(out, hyp, bounds, ref, reg[2 * (g + i)], reg[2 * (g + j) + 1]) < 0)
                    goto fail;
            }
        }
        if (k > max_join && add_proposal(out, hyp, bounds, ref, reg[2 * g], reg[2 * (g + k - 1) + 1]) < 0)
            goto fail;
        g += k;
    }
done:
    PyMem_Free(reg);
    return out;
fail:
    Py_CLEAR(out);
    goto done;
}

static PyMethodDef methods[] = {
    {"layout", layout, METH_VARARGS, "layout(ops, n_hyp) -> (hits, bounds): HypCells' hits and cell bounds."},
    {"layout_edits", layout_edits, METH_VARARGS,
     "layout_edits(editops, n_ref, n_hyp) -> (hits, bounds): layout of the opcodes these editops make."},
    {"diff_edits", diff_edits, METH_VARARGS, "diff_edits(editops, bounds) -> diff of the cells."},
    {"diff", diff, METH_VARARGS, "diff(ops, bounds) -> per cell, whether the hypothesis differs there."},
    {"regions", regions, METH_O, "regions(diff) -> maximal runs of differing cells, as (lo, hi)."},
    {"reading", reading, METH_VARARGS,
     "reading(hyp, bounds, lo, hi, ref_words, audio_words, apart) -> reading_of of the words in cells lo..hi."},
    {"verdicts", verdicts, METH_VARARGS,
     "verdicts(hyps, bounds, eligible, lo, hi, ref_words, audio_words, apart) -> reading (or \"ineligible\") of each."},
    {"texts", texts, METH_VARARGS, "texts(hyps, bounds, lo, hi) -> each hypothesis's words in cells lo..hi, joined."},
    {"followers", followers, METH_VARARGS,
     "followers(ref, start, end, audio, hyps, bounds, order, allowed, window) -> the members following an edit."},
    {"proposals", proposals, METH_VARARGS,
     "proposals(diff, bounds, hyp, ref, max_join) -> refdis_votes._proposals of the cells as canonical keys."},
    {"distance", distance, METH_VARARGS, "distance(a, b) -> rapidfuzz's Levenshtein.distance of two word tuples."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_refdis_fast", "The miner's cell layout in C (see refdis_cells.py).", -1, methods,
};

PyMODINIT_FUNC
PyInit__refdis_fast(void)
{
    s_audio = PyUnicode_InternFromString("audio");
    s_ref = PyUnicode_InternFromString("ref");
    s_other = PyUnicode_InternFromString("other");
    s_ineligible = PyUnicode_InternFromString("ineligible");
    s_space = PyUnicode_InternFromString(" ");
    if (s_audio == NULL || s_ref == NULL || s_other == NULL || s_ineligible == NULL || s_space == NULL)
        return NULL;
    return PyModule_Create(&module);
}
