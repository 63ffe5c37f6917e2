/* The per-string path of the Whisper English normalizer (asraudit.text.whisper_english), in C.
 *
 * ``Core`` is the base class of ``EnglishNormalizer``: its ``__call__`` and ``tokens`` do what the Python
 * methods ``_call_py`` and ``_tokens_py`` do (lowercase, bracket and apostrophe checks, split, per-token
 * table lookups, the inert test, the join or the words, the final symbol test), reading the same Python
 * dicts.  Everything else stays in Python and is called back: learning an unseen token (``_learn``), the
 * string-level steps for brackets and cross-token apostrophes (``_prepare``), number spans (``_span``,
 * ``_span_final``), strings with "half" (``_half``), the last symbol rules (``_symbols``).  The tables
 * tuple is read once per string and kept (a strong reference) while the string is in hand, as the Python
 * code does; it is replaced whole, never cleared in place, when it holds ``_CACHE_LIMIT`` tokens.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <string.h>

#if PY_VERSION_HEX < 0x030C0000
#include <structmember.h>
#define OBJECT_MEMBER T_OBJECT_EX
#else
#define OBJECT_MEMBER Py_T_OBJECT_EX
#endif

/* Token codes (whisper_english: INERT, SELF, ACTIVE, EMPTY, DIGITS, SUFFIX, HALF). */
enum { INERT = 0, SELF = 1, ACTIVE = 2, EMPTY = 3, DIGITS = 4, SUFFIX = 5, HALF = 6 };

static PyObject *namespace_ = NULL; /* whisper_english's globals (configure): _CACHE_LIMIT, CROSS_TOKEN */
static PyObject *str_lower, *str_learn, *str_span, *str_span_final, *str_symbols, *str_prepare, *str_call_py,
    *str_tokens_py, *str_half, *str_search, *str_limit, *str_cross, *str_space;

typedef struct {
    PyObject_HEAD
    PyObject *tables;  /* (code, spelled, words, final words) dicts keyed by token */
    PyObject *resplit; /* a spelling value that needs the output re-split */
} Core;

typedef struct {
    Py_ssize_t start, end;
} Range;

/* Growable array of token ranges, on the stack while short. */
typedef struct {
    Range *items;
    Py_ssize_t n, cap;
    Range stack[64];
} Ranges;

static void ranges_init(Ranges *r) {
    r->items = r->stack;
    r->n = 0;
    r->cap = 64;
}

static void ranges_free(Ranges *r) {
    if (r->items != r->stack)
        PyMem_Free(r->items);
    ranges_init(r);
}

static int ranges_push(Ranges *r, Py_ssize_t start, Py_ssize_t end) {
    if (r->n == r->cap) {
        Py_ssize_t cap = r->cap * 2;
        Range *items;
        if (r->items == r->stack) {
            items = PyMem_Malloc(sizeof(Range) * (size_t)cap);
            if (items)
                memcpy(items, r->stack, sizeof(Range) * (size_t)r->n);
        } else {
            items = PyMem_Realloc(r->items, sizeof(Range) * (size_t)cap);
        }
        if (!items) {
            PyErr_NoMemory();
            return -1;
        }
        r->items = items;
        r->cap = cap;
    }
    r->items[r->n].start = start;
    r->items[r->n].end = end;
    r->n++;
    return 0;
}

/* Flags of a lowercased string (before its split). */
#define HAS_BRACKET 1
#define HAS_APOSTROPHE 2

/* Split ``s`` at whitespace (str.split()'s rule: Py_UNICODE_ISSPACE) into ``out``; the bracket and
 * apostrophe flags of its characters.  -1 on error. */
static int split(PyObject *s, Ranges *out) {
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    Py_ssize_t len = PyUnicode_GET_LENGTH(s), i = 0, start;
    int flags = 0;
    while (i < len) {
        while (i < len && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i)))
            i++;
        if (i == len)
            break;
        start = i;
        while (i < len) {
            Py_UCS4 c = PyUnicode_READ(kind, data, i);
            if (Py_UNICODE_ISSPACE(c))
                break;
            if (c == '[' || c == '<' || c == '(')
                flags |= HAS_BRACKET;
            else if (c == '\'')
                flags |= HAS_APOSTROPHE;
            i++;
        }
        if (ranges_push(out, start, i) < 0)
            return -1;
    }
    return flags;
}

/* Whether ``s`` holds a character the last two symbol rules read (whisper_english._final_symbol). */
static int final_symbol(PyObject *s) {
    Py_ssize_t len = PyUnicode_GET_LENGTH(s), i;
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *d = data;
        if (memchr(d, '.', (size_t)len) || memchr(d, '$', (size_t)len) || memchr(d, '%', (size_t)len))
            return 1;
        if (PyUnicode_IS_ASCII(s))
            return 0;
        return memchr(d, 0xA3, (size_t)len) || memchr(d, 0xA2, (size_t)len); /* £ ¢ */
    }
    for (i = 0; i < len; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c == '.' || c == '$' || c == '%' || c == 0xA3 || c == 0x20AC || c == 0xA2)
            return 1;
    }
    return 0;
}

/* The tables tuple to use for this string: ``self.tables``, replaced by four empty dicts first when
 * full (between strings, never while one is in hand).  A new reference, NULL on error. */
static PyObject *current_tables(Core *self) {
    PyObject *tables = self->tables, *limit;
    Py_ssize_t cap;
    if (!namespace_) {
        PyErr_SetString(PyExc_RuntimeError, "_whisper_fast.configure was not called");
        return NULL;
    }
    if (!tables || !PyTuple_CheckExact(tables) || PyTuple_GET_SIZE(tables) != 4 ||
        !PyDict_CheckExact(PyTuple_GET_ITEM(tables, 0)) || !PyDict_CheckExact(PyTuple_GET_ITEM(tables, 1)) ||
        !PyDict_CheckExact(PyTuple_GET_ITEM(tables, 2)) || !PyDict_CheckExact(PyTuple_GET_ITEM(tables, 3))) {
        PyErr_SetString(PyExc_TypeError, "_tables must be a tuple of four dicts");
        return NULL;
    }
    limit = PyDict_GetItemWithError(namespace_, str_limit);
    if (!limit) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_RuntimeError, "_CACHE_LIMIT is not set");
        return NULL;
    }
    cap = PyLong_AsSsize_t(limit);
    if (cap == -1 && PyErr_Occurred())
        return NULL;
    if (PyDict_GET_SIZE(PyTuple_GET_ITEM(tables, 0)) >= cap) {
        PyObject *fresh = PyTuple_New(4), *old;
        if (!fresh)
            return NULL;
        for (int k = 0; k < 4; k++) {
            PyObject *d = PyDict_New();
            if (!d) {
                Py_DECREF(fresh);
                return NULL;
            }
            PyTuple_SET_ITEM(fresh, k, d);
        }
        old = self->tables;
        self->tables = fresh; /* the object's reference */
        Py_XDECREF(old);
        tables = fresh;
    }
    return Py_NewRef(tables);
}

/* Whether CROSS_TOKEN.search(s) finds a match: 1, 0, or -1 on error. */
static int cross_token(PyObject *s) {
    PyObject *pattern, *m;
    int found;
    if (!namespace_) {
        PyErr_SetString(PyExc_RuntimeError, "_whisper_fast.configure was not called");
        return -1;
    }
    pattern = PyDict_GetItemWithError(namespace_, str_cross);
    if (!pattern) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_RuntimeError, "CROSS_TOKEN is not set");
        return -1;
    }
    Py_INCREF(pattern);
    m = PyObject_CallMethodOneArg(pattern, str_search, s);
    Py_DECREF(pattern);
    if (!m)
        return -1;
    found = m != Py_None;
    Py_DECREF(m);
    return found;
}

/* The tokens of ``s`` (its ``ranges``) as a tuple of new strings, and their codes in ``codes`` (learning
 * unseen tokens through ``self._learn``).  NULL on error. */
static PyObject *token_codes(Core *self, PyObject *s, Ranges *ranges, PyObject *tables, unsigned char *codes) {
    PyObject *code_of = PyTuple_GET_ITEM(tables, 0);
    PyObject *tokens = PyTuple_New(ranges->n);
    if (!tokens)
        return NULL;
    for (Py_ssize_t i = 0; i < ranges->n; i++) {
        PyObject *token = PyUnicode_Substring(s, ranges->items[i].start, ranges->items[i].end), *code;
        long value;
        if (!token)
            goto error;
        PyTuple_SET_ITEM(tokens, i, token);
        code = PyDict_GetItemWithError(code_of, token);
        if (!code) {
            PyObject *args[3] = {(PyObject *)self, token, tables}, *r;
            if (PyErr_Occurred())
                goto error;
            r = PyObject_VectorcallMethod(str_learn, args, 3 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
            if (!r)
                goto error;
            Py_DECREF(r);
            code = PyDict_GetItemWithError(code_of, token);
            if (!code) {
                if (!PyErr_Occurred())
                    PyErr_SetObject(PyExc_KeyError, token);
                goto error;
            }
        }
        value = PyLong_AsLong(code);
        if (value < INERT || value > HALF) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "token code %ld out of range", value);
            goto error;
        }
        codes[i] = (unsigned char)value;
    }
    return tokens;
error:
    Py_DECREF(tokens);
    return NULL;
}

/* whisper_english._inert over ``n`` codes. */
static int inert(const unsigned char *codes, Py_ssize_t n) {
    int self_seen = 0, empty_seen = 0, adjacent = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char c = codes[i];
        if (c == ACTIVE || c == DIGITS || c == HALF)
            return 0;
        if (c == SELF) {
            if (self_seen && codes[i - 1] == SELF)
                adjacent = 1;
            self_seen = 1;
        } else if (c == EMPTY)
            empty_seen = 1;
    }
    return !self_seen || (!empty_seen && !adjacent);
}

static int has_code(const unsigned char *codes, Py_ssize_t n, unsigned char code) {
    return n > 0 && memchr(codes, code, (size_t)n) != NULL;
}

/* tokens[start:end] as a new tuple. */
static PyObject *span_of(PyObject *tokens, Py_ssize_t start, Py_ssize_t end) {
    return PyTuple_GetSlice(tokens, start, end);
}

static PyObject *call_method2(Core *self, PyObject *name, PyObject *a, PyObject *b) {
    PyObject *args[3] = {(PyObject *)self, a, b};
    return PyObject_VectorcallMethod(name, args, 3 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
}

static PyObject *call_method1(Core *self, PyObject *name, PyObject *a) {
    PyObject *args[2] = {(PyObject *)self, a};
    return PyObject_VectorcallMethod(name, args, 2 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
}

/* Append ``piece`` to ``out`` unless it is empty (filter(None, ...)). */
static int append_piece(PyObject *out, PyObject *piece) {
    if (!PyUnicode_Check(piece)) {
        PyErr_SetString(PyExc_TypeError, "a token's spelling must be a str");
        return -1;
    }
    if (PyUnicode_GET_LENGTH(piece) == 0)
        return 0;
    return PyList_Append(out, piece);
}

/* The finished string from the joined pieces: ``self._symbols(joined)`` where its rules could apply. */
static PyObject *finish(Core *self, PyObject *joined) {
    int truth;
    if (final_symbol(joined))
        goto python;
    truth = self->resplit ? PyObject_IsTrue(self->resplit) : 0;
    if (truth < 0) {
        Py_DECREF(joined);
        return NULL;
    }
    if (!truth)
        return joined;
python : {
    PyObject *r = call_method1(self, str_symbols, joined);
    Py_DECREF(joined);
    return r;
}
}

static PyObject *Core_call(PyObject *op, PyObject *args, PyObject *kwargs) {
    Core *self = (Core *)op;
    PyObject *text, *s = NULL, *tables = NULL, *tokens = NULL, *out = NULL, *result = NULL;
    Ranges ranges;
    unsigned char stack_codes[256], *codes = stack_codes;
    int flags, all_inert;
    Py_ssize_t n;

    if (kwargs && PyDict_GET_SIZE(kwargs)) {
        PyErr_SetString(PyExc_TypeError, "the normalizer takes no keyword arguments");
        return NULL;
    }
    if (PyTuple_GET_SIZE(args) != 1) {
        PyErr_Format(PyExc_TypeError, "the normalizer takes one argument (%zd given)", PyTuple_GET_SIZE(args));
        return NULL;
    }
    text = PyTuple_GET_ITEM(args, 0);
    if (!PyUnicode_CheckExact(text))
        return call_method1(self, str_call_py, text);
    ranges_init(&ranges);
    s = PyObject_CallMethodNoArgs(text, str_lower);
    if (!s)
        goto done;
    flags = split(s, &ranges);
    if (flags < 0)
        goto done;
    if (flags) {
        int cross = 0;
        if (!(flags & HAS_BRACKET)) {
            cross = cross_token(s);
            if (cross < 0)
                goto done;
        }
        if ((flags & HAS_BRACKET) || cross) {
            PyObject *prepared = call_method1(self, str_prepare, s), *next;
            int finished;
            if (!prepared)
                goto done;
            if (!PyTuple_CheckExact(prepared) || PyTuple_GET_SIZE(prepared) != 2 ||
                !PyUnicode_CheckExact(PyTuple_GET_ITEM(prepared, 0))) {
                Py_DECREF(prepared);
                PyErr_SetString(PyExc_TypeError, "_prepare must return (str, bool)");
                goto done;
            }
            finished = PyObject_IsTrue(PyTuple_GET_ITEM(prepared, 1));
            next = Py_NewRef(PyTuple_GET_ITEM(prepared, 0));
            Py_DECREF(prepared);
            if (finished) {
                if (finished > 0)
                    result = next;
                else
                    Py_DECREF(next);
                goto done;
            }
            Py_SETREF(s, next);
            ranges.n = 0;
            if (split(s, &ranges) < 0)
                goto done;
        }
    }
    n = ranges.n;
    if (n > (Py_ssize_t)sizeof(stack_codes)) {
        codes = PyMem_Malloc((size_t)n);
        if (!codes) {
            PyErr_NoMemory();
            goto done;
        }
    }
    tables = current_tables(self);
    if (!tables)
        goto done;
    tokens = token_codes(self, s, &ranges, tables, codes);
    if (!tokens)
        goto done;
    all_inert = inert(codes, n);
    if (!all_inert && has_code(codes, n, HALF)) {
        result = call_method2(self, str_half, tokens, tables);
        goto done;
    }
    out = PyList_New(0);
    if (!out)
        goto done;
    {
        PyObject *spelled = PyTuple_GET_ITEM(tables, 1);
        Py_ssize_t i = 0;
        while (i < n) {
            if (all_inert || codes[i] == INERT) {
                /* inert string: every token's spelling; otherwise an INERT token's */
                PyObject *piece = PyDict_GetItemWithError(spelled, PyTuple_GET_ITEM(tokens, i));
                if (!piece) {
                    if (!PyErr_Occurred())
                        PyErr_SetObject(PyExc_KeyError, PyTuple_GET_ITEM(tokens, i));
                    goto done;
                }
                if (append_piece(out, piece) < 0)
                    goto done;
                i++;
            } else {
                Py_ssize_t end = i;
                PyObject *span, *piece;
                int bad;
                while (end < n && codes[end] != INERT)
                    end++;
                span = span_of(tokens, i, end);
                if (!span)
                    goto done;
                piece = call_method2(self, str_span, span, tables);
                Py_DECREF(span);
                if (!piece)
                    goto done;
                bad = append_piece(out, piece);
                Py_DECREF(piece);
                if (bad < 0)
                    goto done;
                i = end;
            }
        }
    }
    {
        PyObject *joined = PyUnicode_Join(str_space, out);
        if (!joined)
            goto done;
        result = finish(self, joined);
    }
done:
    Py_XDECREF(s);
    Py_XDECREF(tables);
    Py_XDECREF(tokens);
    Py_XDECREF(out);
    if (codes != stack_codes)
        PyMem_Free(codes);
    ranges_free(&ranges);
    return result;
}

/* tuple(self(text).split()). */
static PyObject *tokens_of_call(Core *self, PyObject *text) {
    PyObject *joined = PyObject_CallOneArg((PyObject *)self, text), *words, *out;
    if (!joined)
        return NULL;
    if (!PyUnicode_Check(joined)) {
        Py_DECREF(joined);
        PyErr_SetString(PyExc_TypeError, "the normalizer must return a str");
        return NULL;
    }
    words = PyUnicode_Split(joined, NULL, -1);
    Py_DECREF(joined);
    if (!words)
        return NULL;
    out = PyList_AsTuple(words);
    Py_DECREF(words);
    return out;
}

/* Extend ``out`` by the words tuple ``words``; 1 where it is None (the symbol rules could read it). */
static int extend_words(PyObject *out, PyObject *words) {
    if (words == Py_None)
        return 1;
    if (!PyTuple_CheckExact(words)) {
        PyErr_SetString(PyExc_TypeError, "final words must be a tuple or None");
        return -1;
    }
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(words); k++)
        if (PyList_Append(out, PyTuple_GET_ITEM(words, k)) < 0)
            return -1;
    return 0;
}

static PyObject *Core_tokens(PyObject *op, PyObject *text) {
    Core *self = (Core *)op;
    PyObject *s = NULL, *tables = NULL, *tokens = NULL, *out = NULL, *result = NULL;
    Ranges ranges;
    unsigned char stack_codes[256], *codes = stack_codes;
    int flags, fallback = 0;
    Py_ssize_t n;

    if (!PyUnicode_CheckExact(text))
        return call_method1(self, str_tokens_py, text);
    ranges_init(&ranges);
    s = PyObject_CallMethodNoArgs(text, str_lower);
    if (!s)
        goto done;
    flags = split(s, &ranges);
    if (flags < 0)
        goto done;
    if (flags & HAS_BRACKET) {
        fallback = 1;
        goto done;
    }
    if (flags & HAS_APOSTROPHE) {
        int cross = cross_token(s);
        if (cross < 0)
            goto done;
        if (cross) {
            fallback = 1;
            goto done;
        }
    }
    n = ranges.n;
    if (n > (Py_ssize_t)sizeof(stack_codes)) {
        codes = PyMem_Malloc((size_t)n);
        if (!codes) {
            PyErr_NoMemory();
            goto done;
        }
    }
    tables = current_tables(self);
    if (!tables)
        goto done;
    tokens = token_codes(self, s, &ranges, tables, codes);
    if (!tokens)
        goto done;
    {
        PyObject *final = PyTuple_GET_ITEM(tables, 3);
        int all_inert = inert(codes, n);
        Py_ssize_t i = 0;
        if (!all_inert && has_code(codes, n, HALF)) {
            fallback = 1;
            goto done;
        }
        out = PyList_New(0);
        if (!out)
            goto done;
        while (i < n) {
            int r;
            if (all_inert || codes[i] == INERT) {
                PyObject *words = PyDict_GetItemWithError(final, PyTuple_GET_ITEM(tokens, i));
                if (!words) {
                    if (!PyErr_Occurred())
                        PyErr_SetObject(PyExc_KeyError, PyTuple_GET_ITEM(tokens, i));
                    goto done;
                }
                r = extend_words(out, words);
                i++;
            } else {
                Py_ssize_t end = i;
                PyObject *span, *words;
                while (end < n && codes[end] != INERT)
                    end++;
                span = span_of(tokens, i, end);
                if (!span)
                    goto done;
                words = call_method2(self, str_span_final, span, tables);
                Py_DECREF(span);
                if (!words)
                    goto done;
                r = extend_words(out, words);
                Py_DECREF(words);
                i = end;
            }
            if (r < 0)
                goto done;
            if (r > 0) {
                fallback = 1;
                goto done;
            }
        }
        result = PyList_AsTuple(out);
    }
done:
    Py_XDECREF(s);
    Py_XDECREF(tables);
    Py_XDECREF(tokens);
    Py_XDECREF(out);
    if (codes != stack_codes)
        PyMem_Free(codes);
    ranges_free(&ranges);
    if (fallback && !PyErr_Occurred())
        result = tokens_of_call(self, text);
    return result;
}

static int Core_traverse(PyObject *op, visitproc visit, void *arg) {
    Core *self = (Core *)op;
    Py_VISIT(self->tables);
    Py_VISIT(self->resplit);
    return 0;
}

static int Core_clear(PyObject *op) {
    Core *self = (Core *)op;
    Py_CLEAR(self->tables);
    Py_CLEAR(self->resplit);
    return 0;
}

static void Core_dealloc(PyObject *op) {
    PyTypeObject *tp = Py_TYPE(op);
    PyObject_GC_UnTrack(op);
    Core_clear(op);
    tp->tp_free(op);
}

static PyMemberDef Core_members[] = {
    {"_tables", OBJECT_MEMBER, offsetof(Core, tables), 0,
     "(code, spelling, words, final words) per token; replaced whole when full"},
    {"_resplit", OBJECT_MEMBER, offsetof(Core, resplit), 0, "whether a spelling value needs a re-split"},
    {NULL, 0, 0, 0, NULL},
};

static PyMethodDef Core_methods[] = {
    {"tokens", Core_tokens, METH_O, "tuple(self(text).split()), without the join and the split."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "asraudit.text._whisper_fast.Core",
    .tp_basicsize = sizeof(Core),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The per-string path of the Whisper English normalizer (its base class).",
    .tp_new = PyType_GenericNew,
    .tp_call = Core_call,
    .tp_traverse = Core_traverse,
    .tp_clear = Core_clear,
    .tp_dealloc = Core_dealloc,
    .tp_members = Core_members,
    .tp_methods = Core_methods,
};

static PyObject *configure(PyObject *module, PyObject *ns) {
    if (!PyDict_Check(ns)) {
        PyErr_SetString(PyExc_TypeError, "configure takes the module's globals()");
        return NULL;
    }
    Py_XSETREF(namespace_, Py_NewRef(ns));
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"configure", configure, METH_O, "Give the module whisper_english's globals (_CACHE_LIMIT, CROSS_TOKEN)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_whisper_fast", "The Whisper English normalizer's per-string path in C.", -1,
    module_methods,
};

static int intern(PyObject **slot, const char *text) {
    *slot = PyUnicode_InternFromString(text);
    return *slot ? 0 : -1;
}

PyMODINIT_FUNC PyInit__whisper_fast(void) {
    PyObject *m;
    if (intern(&str_lower, "lower") || intern(&str_learn, "_learn") || intern(&str_span, "_span") ||
        intern(&str_span_final, "_span_final") || intern(&str_symbols, "_symbols") ||
        intern(&str_prepare, "_prepare") || intern(&str_call_py, "_call_py") ||
        intern(&str_tokens_py, "_tokens_py") || intern(&str_half, "_half") || intern(&str_search, "search") ||
        intern(&str_limit, "_CACHE_LIMIT") || intern(&str_cross, "CROSS_TOKEN") || intern(&str_space, " "))
        return NULL;
    if (PyType_Ready(&CoreType) < 0)
        return NULL;
    m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
