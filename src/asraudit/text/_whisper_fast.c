/* The per-string path of the Whisper English normalizer (asraudit.text.whisper_english), in C.
 *
 * ``Core`` is the base class of ``EnglishNormalizer``: its ``__call__`` and ``tokens`` do what the Python
 * methods ``_call_py`` and ``_tokens_py`` do (lowercase, the bracket rules, the cross-token apostrophe
 * test, split, one lookup per token in the Python dict of (code, spelling, final words), the inert test,
 * the memoized number spans, the join or the words, the last two symbol rules), reading the same Python
 * dicts, and the number step's walk over words (``_numbers_and_spelling_c``, ``_symbols_c``).  Everything
 * else stays in Python and is called back: learning an unseen token (``_learn``), the string-level steps
 * for cross-token apostrophes (``_prepare``), number spans not memoized yet (``_span``, ``_span_final``),
 * words and runs not seen yet (``_kind``, ``_run``), strings with "half" (``_half``).  The tables tuple is read once per string and kept
 * (a strong reference) while the string is in hand, as the Python code does; it is replaced whole, never
 * cleared in place, when it holds ``_CACHE_LIMIT`` tokens.  Every object read from a dict is held by a
 * strong reference before any Python code can run (a callback may re-learn a token in another thread).
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
/* The tables tuple: code, spelled, words, final words, and (code, spelled, final words) per token. */
#define TABLES 5
#define ENTRIES 4

static PyObject *namespace_ = NULL; /* whisper_english's globals (configure): _CACHE_LIMIT, CROSS_TOKEN */
static PyObject *str_active, *str_runs, *str_spelling, *str_kind, *str_run;
static PyObject *str_lower, *str_learn, *str_span, *str_span_final, *str_prepare, *str_call_py,
    *str_tokens_py, *str_half, *str_search, *str_limit, *str_cross, *str_space;

typedef struct {
    PyObject_HEAD
    PyObject *tables;  /* (code, spelled, words, final words, (code, spelled, final words)) dicts by token */
    PyObject *resplit; /* a spelling value that needs the output re-split */
    PyObject *spans;       /* span of tokens -> its output (_span's memo) */
    PyObject *span_finals; /* span of tokens -> its final words (_span_final's memo) */
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

/* Character classes for UCS1 text (decided at import from Py_UNICODE_ISSPACE, str.split()'s rule). */
enum { PLAIN = 0, SPACE = 1, BRACKET = 2, APOSTROPHE = 3 };
static unsigned char ucs1_class[256];

/* Flags of a lowercased string (before its split). */
#define HAS_BRACKET 1
#define HAS_APOSTROPHE 2
static const int class_flag[4] = {0, 0, HAS_BRACKET, HAS_APOSTROPHE};

static inline int class_of(Py_UCS4 c) {
    if (c < 256)
        return ucs1_class[c];
    return Py_UNICODE_ISSPACE(c) ? SPACE : PLAIN;
}

/* Split ``s`` at whitespace (str.split()'s rule) into ``out``; the bracket and apostrophe flags of its
 * characters.  -1 on error. */
static int split(PyObject *s, Ranges *out) {
    int kind = PyUnicode_KIND(s), flags = 0;
    const void *data = PyUnicode_DATA(s);
    Py_ssize_t len = PyUnicode_GET_LENGTH(s), i = 0, start = -1;
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *d = data;
        while (i < len) {
            int cls;
            while (i < len && ucs1_class[d[i]] == SPACE)
                i++;
            if (i == len)
                break;
            start = i;
            while (i < len && (cls = ucs1_class[d[i]]) != SPACE) {
                flags |= class_flag[cls];
                i++;
            }
            if (ranges_push(out, start, i) < 0)
                return -1;
        }
        return flags;
    } else {
        for (i = 0; i < len; i++) {
            int cls = class_of(PyUnicode_READ(kind, data, i));
            if (cls == SPACE) {
                if (start >= 0) {
                    if (ranges_push(out, start, i) < 0)
                        return -1;
                    start = -1;
                }
                continue;
            }
            if (start < 0)
                start = i;
            if (cls == BRACKET)
                flags |= HAS_BRACKET;
            else if (cls == APOSTROPHE)
                flags |= HAS_APOSTROPHE;
        }
    }
    if (start >= 0 && ranges_push(out, start, len) < 0)
        return -1;
    return flags;
}

static inline int is_final_symbol(Py_UCS4 c) {
    return c == '.' || c == '$' || c == '%' || c == 0xA3 || c == 0x20AC || c == 0xA2; /* . $ % £ € ¢ */
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
    for (i = 0; i < len; i++)
        if (is_final_symbol(PyUnicode_READ(kind, data, i)))
            return 1;
    return 0;
}

/* ``s`` as a new UCS4 buffer (PyMem_Free it), NULL on error. */
static Py_UCS4 *ucs4_copy(PyObject *s) {
    Py_ssize_t len = PyUnicode_GET_LENGTH(s);
    Py_UCS4 *buf = PyMem_Malloc(sizeof(Py_UCS4) * (size_t)(len + 1));
    if (!buf) {
        PyErr_NoMemory();
        return NULL;
    }
    if (!PyUnicode_AsUCS4(s, buf, len + 1, 0)) {
        PyMem_Free(buf);
        return NULL;
    }
    return buf;
}

/* symbols.remove_bracketed: BRACKETS ``[<\[][^>\]]*[>\]]`` then PARENTHESES ``\(([^)]+?)\)`` removed,
 * each as re.sub finds its matches (left to right, not overlapping).  A new reference. */
static PyObject *remove_bracketed(PyObject *s) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(s), i, w, j;
    Py_UCS4 *b = ucs4_copy(s);
    PyObject *out;
    if (!b)
        return NULL;
    /* An opening bracket with no closing one after it cannot match, nor can any later one: the rest stays. */
    for (i = 0, w = 0; i < n;) {
        if (b[i] == '[' || b[i] == '<') {
            for (j = i + 1; j < n && b[j] != '>' && b[j] != ']'; j++)
                ;
            if (j < n) {
                i = j + 1;
                continue;
            }
            while (i < n)
                b[w++] = b[i++];
            break;
        }
        b[w++] = b[i++];
    }
    n = w;
    /* "(" matches up to the first ")" after it, with at least one character between. */
    for (i = 0, w = 0; i < n;) {
        if (b[i] == '(') {
            for (j = i + 1; j < n && b[j] != ')'; j++)
                ;
            if (j == n) {
                while (i < n)
                    b[w++] = b[i++];
                break;
            }
            if (j > i + 1) {
                i = j + 1;
                continue;
            }
        }
        b[w++] = b[i++];
    }
    out = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, b, w);
    PyMem_Free(b);
    return out;
}

static inline int is_digit(Py_UCS4 c) { return c >= '0' && c <= '9'; }

/* EnglishNormalizer._symbols where it does anything: LEADING_SYMBOL ``[.$¢€£]([^0-9])`` -> `` \1``,
 * then TRAILING_PERCENT ``([^0-9])%`` -> ``\1 ``, then " ".join(s.split()).  A new reference. */
static PyObject *final_symbols(PyObject *s) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(s), i, w;
    Py_UCS4 *b = ucs4_copy(s);
    PyObject *out;
    int pending;
    if (!b)
        return NULL;
    for (i = 0; i + 1 < n;) {
        Py_UCS4 c = b[i];
        if ((c == '.' || c == '$' || c == 0xA2 || c == 0x20AC || c == 0xA3) && !is_digit(b[i + 1])) {
            b[i] = ' ';
            i += 2;
        } else
            i++;
    }
    for (i = 0; i + 1 < n;) {
        if (!is_digit(b[i]) && b[i + 1] == '%') {
            b[i + 1] = ' ';
            i += 2;
        } else
            i++;
    }
    /* words joined by single spaces, none at the edges */
    for (i = 0, w = 0, pending = 0; i < n; i++) {
        if (class_of(b[i]) == SPACE) {
            pending = w > 0;
            continue;
        }
        if (pending) {
            b[w++] = ' ';
            pending = 0;
        }
        b[w++] = b[i];
    }
    out = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, b, w);
    PyMem_Free(b);
    return out;
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
    if (!tables || !PyTuple_CheckExact(tables) || PyTuple_GET_SIZE(tables) != TABLES) {
        PyErr_SetString(PyExc_TypeError, "_tables must be a tuple of five dicts");
        return NULL;
    }
    for (int k = 0; k < TABLES; k++)
        if (!PyDict_CheckExact(PyTuple_GET_ITEM(tables, k))) {
            PyErr_SetString(PyExc_TypeError, "_tables must be a tuple of five dicts");
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
        PyObject *fresh = PyTuple_New(TABLES), *old;
        if (!fresh)
            return NULL;
        for (int k = 0; k < TABLES; k++) {
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

static PyObject *call_method2(Core *self, PyObject *name, PyObject *a, PyObject *b) {
    PyObject *args[3] = {(PyObject *)self, a, b};
    return PyObject_VectorcallMethod(name, args, 3 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
}

static PyObject *call_method1(Core *self, PyObject *name, PyObject *a) {
    PyObject *args[2] = {(PyObject *)self, a};
    return PyObject_VectorcallMethod(name, args, 2 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
}

static Py_UCS1 ascii_lower[128];

/* s[start:end].lower() for ASCII ``s``: a new reference. */
static PyObject *ascii_lower_substring(PyObject *s, Py_ssize_t start, Py_ssize_t end) {
    PyObject *out = PyUnicode_New(end - start, 127);
    const Py_UCS1 *from = PyUnicode_1BYTE_DATA(s) + start;
    Py_UCS1 *to;
    if (!out)
        return NULL;
    to = PyUnicode_1BYTE_DATA(out);
    for (Py_ssize_t k = 0; k < end - start; k++)
        to[k] = ascii_lower[from[k] & 127];
    return out;
}

/* The tokens of ``s`` (its ``ranges``; lowercased here where ``lower``, an ASCII ``s``) as a tuple of new
 * strings, their entries (code, spelled, final words: new references) in ``entries`` and their codes in
 * ``codes``, learning unseen tokens through ``self._learn``.  NULL on error (``entries`` then holds none). */
static PyObject *token_codes(Core *self, PyObject *s, int lower, Ranges *ranges, PyObject *tables,
                             PyObject **entries, unsigned char *codes) {
    PyObject *entry_of = PyTuple_GET_ITEM(tables, ENTRIES);
    PyObject *tokens = PyTuple_New(ranges->n);
    Py_ssize_t i;
    if (!tokens)
        return NULL;
    for (i = 0; i < ranges->n; i++) {
        Py_ssize_t start = ranges->items[i].start, end = ranges->items[i].end;
        PyObject *token = lower ? ascii_lower_substring(s, start, end) : PyUnicode_Substring(s, start, end), *entry;
        long value;
        if (!token)
            goto error;
        PyTuple_SET_ITEM(tokens, i, token);
        entry = PyDict_GetItemWithError(entry_of, token);
        if (!entry) {
            PyObject *r;
            if (PyErr_Occurred())
                goto error;
            r = call_method2(self, str_learn, token, tables);
            if (!r)
                goto error;
            Py_DECREF(r);
            entry = PyDict_GetItemWithError(entry_of, token);
            if (!entry) {
                if (!PyErr_Occurred())
                    PyErr_SetObject(PyExc_KeyError, token);
                goto error;
            }
        }
        if (!PyTuple_CheckExact(entry) || PyTuple_GET_SIZE(entry) != 3 ||
            !PyUnicode_Check(PyTuple_GET_ITEM(entry, 1))) {
            PyErr_SetString(PyExc_TypeError, "a token's entry must be (code, spelling, final words)");
            goto error;
        }
        value = PyLong_AsLong(PyTuple_GET_ITEM(entry, 0));
        if (value < INERT || value > HALF) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "token code %ld out of range", value);
            goto error;
        }
        codes[i] = (unsigned char)value;
        entries[i] = Py_NewRef(entry);
    }
    return tokens;
error:
    while (i > 0)
        Py_DECREF(entries[--i]);
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

/* ``memo[span]`` (a new reference), or ``self.<method>(span, tables)`` (``self.<method>(span)`` without
 * ``tables``) where the memo lacks it. */
static PyObject *memo_or_call(Core *self, PyObject *memo, PyObject *method, PyObject *span, PyObject *tables) {
    if (memo && PyDict_CheckExact(memo)) {
        PyObject *hit;
        Py_INCREF(memo);
        hit = PyDict_GetItemWithError(memo, span);
        Py_XINCREF(hit);
        Py_DECREF(memo);
        if (hit)
            return hit;
        if (PyErr_Occurred())
            return NULL;
    }
    return tables ? call_method2(self, method, span, tables) : call_method1(self, method, span);
}

/* One string in hand: its tokens, their codes, the tables read for it. */
typedef struct {
    PyObject *s;      /* lowercased (and prepared) text */
    PyObject *tables; /* the tables tuple */
    PyObject *tokens; /* tuple of token strings */
    unsigned char *codes, stack_codes[256];
    PyObject **entries, *stack_entries[64]; /* each token's (code, spelled, final words), new references */
    Py_ssize_t n;
    int all_inert;
    int lower; /* ``s`` is the caller's ASCII text, lowercased token by token */
    Ranges ranges;
} Work;

static void work_init(Work *w) {
    w->s = w->tables = w->tokens = NULL;
    w->codes = w->stack_codes;
    w->entries = w->stack_entries;
    w->n = 0;
    w->all_inert = 0;
    w->lower = 0;
    ranges_init(&w->ranges);
}

static void work_free(Work *w) {
    Py_CLEAR(w->s);
    Py_CLEAR(w->tables);
    if (w->tokens)
        for (Py_ssize_t i = 0; i < w->n; i++)
            Py_DECREF(w->entries[i]);
    Py_CLEAR(w->tokens);
    if (w->codes != w->stack_codes)
        PyMem_Free(w->codes);
    w->codes = w->stack_codes;
    if (w->entries != w->stack_entries)
        PyMem_Free(w->entries);
    w->entries = w->stack_entries;
    ranges_free(&w->ranges);
}

/* Lowercase, the string-level steps, split, codes.  0: ``w`` holds the tokens; -1: error. */
static int work_start(Core *self, PyObject *text, Work *w) {
    int flags, cross = 0;
    if (PyUnicode_IS_ASCII(text)) {
        /* lowercasing ASCII changes no space, bracket or apostrophe: split first, lowercase the tokens */
        flags = split(text, &w->ranges);
        if (flags < 0)
            return -1;
        if (!flags) {
            w->s = Py_NewRef(text);
            w->lower = 1;
            goto tokens;
        }
        w->ranges.n = 0;
    }
    w->s = PyObject_CallMethodNoArgs(text, str_lower);
    if (!w->s)
        return -1;
    if (!PyUnicode_CheckExact(w->s)) {
        PyErr_SetString(PyExc_TypeError, "str.lower must return a str");
        return -1;
    }
    flags = split(w->s, &w->ranges);
    if (flags < 0)
        return -1;
    if (flags & HAS_BRACKET) {
        PyObject *bare = remove_bracketed(w->s);
        Py_ssize_t apostrophe;
        if (!bare)
            return -1;
        apostrophe = PyUnicode_FindChar(bare, '\'', 0, PyUnicode_GET_LENGTH(bare), 1);
        if (apostrophe == -2) {
            Py_DECREF(bare);
            return -1;
        }
        if (apostrophe >= 0) {
            cross = cross_token(bare);
            if (cross < 0) {
                Py_DECREF(bare);
                return -1;
            }
        }
        if (cross) {
            Py_DECREF(bare); /* _prepare removes the brackets itself */
        } else {
            Py_SETREF(w->s, bare);
            w->ranges.n = 0;
            if (split(w->s, &w->ranges) < 0)
                return -1;
        }
    } else if (flags & HAS_APOSTROPHE) {
        cross = cross_token(w->s);
        if (cross < 0)
            return -1;
    }
    if (cross) {
        PyObject *prepared = call_method1(self, str_prepare, w->s);
        if (!prepared)
            return -1;
        if (!PyUnicode_CheckExact(prepared)) {
            Py_DECREF(prepared);
            PyErr_SetString(PyExc_TypeError, "_prepare must return a str");
            return -1;
        }
        Py_SETREF(w->s, prepared);
        w->ranges.n = 0;
        if (split(w->s, &w->ranges) < 0)
            return -1;
    }
tokens:
    w->n = w->ranges.n;
    if (w->n > (Py_ssize_t)sizeof(w->stack_codes)) {
        w->codes = PyMem_Malloc((size_t)w->n);
        if (!w->codes) {
            w->codes = w->stack_codes;
            PyErr_NoMemory();
            return -1;
        }
    }
    if (w->n > 64) {
        w->entries = PyMem_Malloc(sizeof(PyObject *) * (size_t)w->n);
        if (!w->entries) {
            w->entries = w->stack_entries;
            PyErr_NoMemory();
            return -1;
        }
    }
    w->tables = current_tables(self);
    if (!w->tables)
        return -1;
    w->tokens = token_codes(self, w->s, w->lower, &w->ranges, w->tables, w->entries, w->codes);
    if (!w->tokens)
        return -1;
    w->all_inert = inert(w->codes, w->n);
    return 0;
}

/* Pieces of the output (strong references), on the stack while few. */
typedef struct {
    PyObject **items;
    Py_ssize_t n;
    PyObject *stack[64];
} Pieces;

static int pieces_init(Pieces *p, Py_ssize_t most) {
    p->n = 0;
    p->items = p->stack;
    if (most > 64) {
        p->items = PyMem_Malloc(sizeof(PyObject *) * (size_t)most);
        if (!p->items) {
            p->items = p->stack;
            PyErr_NoMemory();
            return -1;
        }
    }
    return 0;
}

static void pieces_free(Pieces *p) {
    for (Py_ssize_t k = 0; k < p->n; k++)
        Py_DECREF(p->items[k]);
    if (p->items != p->stack)
        PyMem_Free(p->items);
    p->items = p->stack;
    p->n = 0;
}

/* Keep ``piece`` (a new reference taken here) unless it is empty (filter(None, ...)). */
static int pieces_add(Pieces *p, PyObject *piece) {
    if (!PyUnicode_Check(piece)) {
        PyErr_SetString(PyExc_TypeError, "a token's spelling must be a str");
        return -1;
    }
    if (PyUnicode_GET_LENGTH(piece) > 0)
        p->items[p->n++] = Py_NewRef(piece);
    return 0;
}

/* " ".join(pieces): a new reference. */
static PyObject *pieces_join(Pieces *p) {
    Py_ssize_t total = p->n > 0 ? p->n - 1 : 0, at = 0;
    Py_UCS4 most = 127;
    PyObject *out;
    int kind;
    void *data;
    for (Py_ssize_t k = 0; k < p->n; k++) {
        Py_UCS4 top = PyUnicode_MAX_CHAR_VALUE(p->items[k]);
        total += PyUnicode_GET_LENGTH(p->items[k]);
        if (top > most)
            most = top;
    }
    out = PyUnicode_New(total, most);
    if (!out)
        return NULL;
    kind = PyUnicode_KIND(out);
    data = PyUnicode_DATA(out);
    for (Py_ssize_t k = 0; k < p->n; k++) {
        PyObject *piece = p->items[k];
        Py_ssize_t len = PyUnicode_GET_LENGTH(piece);
        if (k > 0)
            PyUnicode_WRITE(kind, data, at++, ' ');
        if (PyUnicode_KIND(piece) == kind)
            memcpy((char *)data + (size_t)at * (size_t)kind, PyUnicode_DATA(piece), (size_t)len * (size_t)kind);
        else if (PyUnicode_CopyCharacters(out, at, piece, 0, len) < 0) {
            Py_DECREF(out);
            return NULL;
        }
        at += len;
    }
    return out;
}

/* The normalized string of the tokens in ``w``: spellings and spans joined, then the last symbol rules. */
static PyObject *work_string(Core *self, Work *w) {
    PyObject *joined;
    Py_ssize_t i = 0, n = w->n;
    Pieces pieces;
    int resplit;
    if (!w->all_inert && has_code(w->codes, n, HALF))
        return call_method2(self, str_half, w->tokens, w->tables);
    if (pieces_init(&pieces, n) < 0)
        return NULL;
    while (i < n) {
        PyObject *piece;
        int bad;
        if (w->all_inert || w->codes[i] == INERT) {
            /* an inert string: every token's spelling; otherwise an INERT token's */
            piece = PyTuple_GET_ITEM(w->entries[i], 1);
            if (pieces_add(&pieces, piece) < 0)
                goto error;
            i++;
        } else {
            Py_ssize_t end = i;
            PyObject *span;
            while (end < n && w->codes[end] != INERT)
                end++;
            span = PyTuple_GetSlice(w->tokens, i, end);
            if (!span)
                goto error;
            piece = memo_or_call(self, self->spans, str_span, span, w->tables);
            Py_DECREF(span);
            if (!piece)
                goto error;
            bad = pieces_add(&pieces, piece);
            Py_DECREF(piece);
            if (bad < 0)
                goto error;
            i = end;
        }
    }
    joined = pieces_join(&pieces);
    pieces_free(&pieces);
    if (!joined)
        return NULL;
    if (final_symbol(joined))
        resplit = 1;
    else {
        resplit = self->resplit ? PyObject_IsTrue(self->resplit) : 0;
        if (resplit < 0) {
            Py_DECREF(joined);
            return NULL;
        }
    }
    if (resplit)
        Py_SETREF(joined, final_symbols(joined));
    return joined;
error:
    pieces_free(&pieces);
    return NULL;
}

static PyObject *normalize(Core *self, PyObject *text) {
    Work w;
    PyObject *done = NULL;
    work_init(&w);
    if (work_start(self, text, &w) == 0)
        done = work_string(self, &w);
    work_free(&w);
    return done;
}

static PyObject *Core_call(PyObject *op, PyObject *args, PyObject *kwargs) {
    Core *self = (Core *)op;
    PyObject *text;
    if ((kwargs && PyDict_GET_SIZE(kwargs)) || PyTuple_GET_SIZE(args) != 1 ||
        !PyUnicode_CheckExact(PyTuple_GET_ITEM(args, 0))) {
        /* anything but one str: the Python method, with its own errors */
        PyObject *method = PyObject_GetAttr(op, str_call_py), *r;
        if (!method)
            return NULL;
        r = PyObject_Call(method, args, kwargs);
        Py_DECREF(method);
        return r;
    }
    text = PyTuple_GET_ITEM(args, 0);
    return normalize(self, text);
}

/* ``joined.split()`` as a tuple (a new reference; steals ``joined``). */
static PyObject *split_tuple(PyObject *joined) {
    PyObject *words, *out;
    if (!joined)
        return NULL;
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

/* The words of the tokens in ``w`` from each token's (and span's) final words: a tuple, Py_None where a
 * piece is one the last symbol rules could read (or the string has "half"), NULL on error. */
static PyObject *work_words(Core *self, Work *w) {
    PyObject *out, *result;
    Py_ssize_t i = 0, n = w->n;
    if (!w->all_inert && has_code(w->codes, n, HALF))
        Py_RETURN_NONE;
    if (w->all_inert) { /* every token's final words, counted first and put straight into the tuple */
        PyObject *stack[64], **found = stack;
        Py_ssize_t total = 0, at = 0;
        if (n > 64) {
            found = PyMem_Malloc(sizeof(PyObject *) * (size_t)n);
            if (!found)
                return PyErr_NoMemory();
        }
        result = NULL;
        for (i = 0; i < n; i++) {
            PyObject *words = PyTuple_GET_ITEM(w->entries[i], 2);
            if (words == Py_None) {
                result = Py_NewRef(Py_None);
                goto inert_done;
            }
            if (!PyTuple_CheckExact(words)) {
                PyErr_SetString(PyExc_TypeError, "final words must be a tuple or None");
                goto inert_done;
            }
            found[i] = words;
            total += PyTuple_GET_SIZE(words);
        }
        result = PyTuple_New(total);
        if (result)
            for (i = 0; i < n; i++)
                for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(found[i]); k++)
                    PyTuple_SET_ITEM(result, at++, Py_NewRef(PyTuple_GET_ITEM(found[i], k)));
    inert_done:
        if (found != stack)
            PyMem_Free(found);
        return result;
    }
    out = PyList_New(0);
    if (!out)
        return NULL;
    while (i < n) {
        int r;
        if (w->all_inert || w->codes[i] == INERT) {
            r = extend_words(out, PyTuple_GET_ITEM(w->entries[i], 2));
            i++;
        } else {
            Py_ssize_t end = i;
            PyObject *span, *words;
            while (end < n && w->codes[end] != INERT)
                end++;
            span = PyTuple_GetSlice(w->tokens, i, end);
            if (!span)
                goto error;
            words = memo_or_call(self, self->span_finals, str_span_final, span, w->tables);
            Py_DECREF(span);
            if (!words)
                goto error;
            r = extend_words(out, words);
            Py_DECREF(words);
            i = end;
        }
        if (r < 0)
            goto error;
        if (r > 0) {
            Py_DECREF(out);
            Py_RETURN_NONE;
        }
    }
    result = PyList_AsTuple(out);
    Py_DECREF(out);
    return result;
error:
    Py_DECREF(out);
    return NULL;
}

static PyObject *Core_tokens(PyObject *op, PyObject *text) {
    Core *self = (Core *)op;
    Work w;
    PyObject *done = NULL;
    if (!PyUnicode_CheckExact(text))
        return call_method1(self, str_tokens_py, text);
    work_init(&w);
    if (work_start(self, text, &w) == 0) {
        done = work_words(self, &w);
        if (done == Py_None) { /* the pieces' words are not the output's: the string, split */
            Py_DECREF(done);
            done = split_tuple(work_string(self, &w));
        }
    }
    work_free(&w);
    return done;
}

/* EnglishNormalizer._numbers_and_spelling: each word's kind (``self._active``, else ``self._kind``), each
 * maximal run of non-inert words through ``self._runs`` (else ``self._run``), every other word's spelling
 * (``self._spelling``).  A new list of str. */
static PyObject *Core_numbers_and_spelling(PyObject *op, PyObject *arg) {
    PyObject *words = NULL, *active = NULL, *runs = NULL, *spelling = NULL, *out = NULL, *result = NULL;
    unsigned char stack_kinds[256], *kinds = stack_kinds;
    Py_ssize_t n, i;
    words = PySequence_Tuple(arg); /* a snapshot: callbacks below cannot change it */
    if (!words)
        return NULL;
    n = PyTuple_GET_SIZE(words);
    if (n > (Py_ssize_t)sizeof(stack_kinds) && !(kinds = PyMem_Malloc((size_t)n))) {
        kinds = stack_kinds;
        PyErr_NoMemory();
        goto done;
    }
    if (!(active = PyObject_GetAttr(op, str_active)) || !(runs = PyObject_GetAttr(op, str_runs)) ||
        !(spelling = PyObject_GetAttr(op, str_spelling)))
        goto done;
    if (!PyDict_Check(active) || !PyDict_Check(runs) || !PyDict_Check(spelling)) {
        PyErr_SetString(PyExc_TypeError, "_active, _runs and _spelling must be dicts");
        goto done;
    }
    for (i = 0; i < n; i++) {
        PyObject *word = PyTuple_GET_ITEM(words, i), *kind = PyDict_GetItemWithError(active, word);
        long value;
        if (kind) {
            value = PyLong_AsLong(kind);
        } else {
            if (PyErr_Occurred())
                goto done;
            kind = call_method1((Core *)op, str_kind, word);
            if (!kind)
                goto done;
            value = PyLong_AsLong(kind);
            Py_DECREF(kind);
        }
        if (value < 0 || value > 2) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "word kind %ld out of range", value);
            goto done;
        }
        kinds[i] = (unsigned char)value;
    }
    out = PyList_New(0);
    if (!out)
        goto done;
    for (i = 0; i < n;) {
        if (kinds[i] == 0) {
            PyObject *word = PyTuple_GET_ITEM(words, i), *spelled = PyDict_GetItemWithError(spelling, word);
            if (!spelled && PyErr_Occurred())
                goto done;
            if (PyList_Append(out, spelled ? spelled : word) < 0)
                goto done;
            i++;
        } else {
            Py_ssize_t end = i;
            PyObject *run, *got;
            int bad;
            while (end < n && kinds[end] != 0)
                end++;
            run = PyTuple_GetSlice(words, i, end);
            if (!run)
                goto done;
            got = memo_or_call((Core *)op, runs, str_run, run, NULL);
            Py_DECREF(run);
            if (!got)
                goto done;
            if (!PyTuple_Check(got)) {
                Py_DECREF(got);
                PyErr_SetString(PyExc_TypeError, "_run must return a tuple");
                goto done;
            }
            bad = 0;
            for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(got) && !bad; k++)
                bad = PyList_Append(out, PyTuple_GET_ITEM(got, k)) < 0;
            Py_DECREF(got);
            if (bad)
                goto done;
            i = end;
        }
    }
    result = Py_NewRef(out);
done:
    Py_XDECREF(words);
    Py_XDECREF(active);
    Py_XDECREF(runs);
    Py_XDECREF(spelling);
    Py_XDECREF(out);
    if (kinds != stack_kinds)
        PyMem_Free(kinds);
    return result;
}

/* EnglishNormalizer._symbols: the last two symbol rules where ``s`` holds one of their symbols, and the
 * re-split where a spelling value needs it. */
static PyObject *Core_symbols(PyObject *op, PyObject *s) {
    Core *self = (Core *)op;
    int resplit;
    if (!PyUnicode_Check(s)) {
        PyErr_SetString(PyExc_TypeError, "_symbols takes a str");
        return NULL;
    }
    if (final_symbol(s))
        return final_symbols(s);
    resplit = self->resplit ? PyObject_IsTrue(self->resplit) : 0;
    if (resplit < 0)
        return NULL;
    return resplit ? final_symbols(s) : Py_NewRef(s);
}

static int Core_traverse(PyObject *op, visitproc visit, void *arg) {
    Core *self = (Core *)op;
    Py_VISIT(self->tables);
    Py_VISIT(self->resplit);
    Py_VISIT(self->spans);
    Py_VISIT(self->span_finals);
    return 0;
}

static int Core_clear(PyObject *op) {
    Core *self = (Core *)op;
    Py_CLEAR(self->tables);
    Py_CLEAR(self->resplit);
    Py_CLEAR(self->spans);
    Py_CLEAR(self->span_finals);
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
    {"_spans", OBJECT_MEMBER, offsetof(Core, spans), 0, "span of tokens -> its output"},
    {"_span_finals", OBJECT_MEMBER, offsetof(Core, span_finals), 0, "span of tokens -> its final words"},
    {NULL, 0, 0, 0, NULL},
};

static PyMethodDef Core_methods[] = {
    {"tokens", Core_tokens, METH_O, "tuple(self(text).split()), without the join and the split."},
    {"_numbers_and_spelling_c", Core_numbers_and_spelling, METH_O,
     "The number normalizer run by run of non-inert words, and every word's spelling (a list)."},
    {"_symbols_c", Core_symbols, METH_O, "The last two symbol rules and the re-split, where they apply."},
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

static PyObject *py_remove_bracketed(PyObject *module, PyObject *s) {
    if (!PyUnicode_Check(s)) {
        PyErr_SetString(PyExc_TypeError, "remove_bracketed takes a str");
        return NULL;
    }
    return remove_bracketed(s);
}

static PyObject *py_final_symbols(PyObject *module, PyObject *s) {
    if (!PyUnicode_Check(s)) {
        PyErr_SetString(PyExc_TypeError, "final_symbols takes a str");
        return NULL;
    }
    return final_symbols(s);
}

static PyMethodDef module_methods[] = {
    {"remove_bracketed", py_remove_bracketed, METH_O, "symbols.remove_bracketed, in C (for the tests)."},
    {"final_symbols", py_final_symbols, METH_O,
     "The last two symbol rules and a re-split: EnglishNormalizer._symbols where it acts (for the tests)."},
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
    if (intern(&str_active, "_active") || intern(&str_runs, "_runs") || intern(&str_spelling, "_spelling") ||
        intern(&str_kind, "_kind") || intern(&str_run, "_run"))
        return NULL;
    if (intern(&str_lower, "lower") || intern(&str_learn, "_learn") || intern(&str_span, "_span") ||
        intern(&str_span_final, "_span_final") ||
        intern(&str_prepare, "_prepare") || intern(&str_call_py, "_call_py") ||
        intern(&str_tokens_py, "_tokens_py") || intern(&str_half, "_half") || intern(&str_search, "search") ||
        intern(&str_limit, "_CACHE_LIMIT") || intern(&str_cross, "CROSS_TOKEN") || intern(&str_space, " "))
        return NULL;
    for (int c = 0; c < 128; c++)
        ascii_lower[c] = (Py_UCS1)((c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c);
    for (int c = 0; c < 256; c++)
        ucs1_class[c] = Py_UNICODE_ISSPACE((Py_UCS4)c) ? SPACE
                        : (c == '[' || c == '<' || c == '(') ? BRACKET
                        : c == '\'' ? APOSTROPHE
                                     : PLAIN;
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
