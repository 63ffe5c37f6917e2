/* The basic normalizer in C: transformers' BasicTextNormalizer, then whitespace collapsed and stripped.
 *
 * transformers' steps, on the whole string, in this order:
 *   1. str.lower
 *   2. remove [...] and <...> spans (re  [<\[][^>\]]*[>\]] ), then (...) spans (re  \(([^)]+?)\) )
 *   3. NFKC
 *   4. every character of category M*, S* or P* becomes a space
 *   5. str.lower again
 *   6. whitespace runs become one space (asraudit also strips the ends: " ".join(s.split()))
 *
 * Everything this file knows about a character it asks this Python's str and unicodedata, the first time the
 * character is seen, and keeps in a table of 256-character pages (no Unicode data is built in):
 *
 *   - its lowercase (str.lower of the character alone, 1 to 3 characters); str.lower of a string is the
 *     characters' lowercases joined, except for U+03A3 (capital sigma, whose lowercase depends on its
 *     neighbours: CPython's only context rule), so a string holding U+03A3 goes through str.lower itself;
 *   - whether it is whitespace (str.isspace), of category M/S/P (unicodedata.category), or Cf (removed first
 *     by normalize_text, as asraudit's strip_format_characters does);
 *   - whether it is "inert" under NFKC: combining class 0, NFKC of it alone is itself, and the first
 *     character of its NFKD is a starter that is neither a mark nor a Hangul vowel or trailing jamo.  A string
 *     of inert characters is its own NFKC: each one's decomposition starts with a starter, so canonical
 *     reordering stays within it, and that starter composes with nothing before it (every character that is
 *     the second of a canonical pair is a mark or such a jamo: tests/test_basic_normalizer.py checks it over
 *     all of Unicode), so composing the whole is composing each character's decomposition alone, which gives
 *     the character back.  Any other string goes through unicodedata.normalize("NFKC", ...) itself.
 *
 * After step 3, step 5 changes nothing unless some kept character has a lowercase other than itself (NFKC can
 * produce capitals: U+210C -> "H"); then steps 4-6 run as written, str.lower on the whole string.  Otherwise
 * steps 4 and 6 are one pass.  ASCII strings (most text) take a shorter road: one table for steps 1, 4 and 5
 * (built from the same character table at import), brackets only when the string holds an opening one.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define F_KNOWN 0x01     /* the entry is filled */
#define F_SPACE 0x02     /* category M*, S* or P*: a space in step 4 */
#define F_WS 0x04        /* str.isspace() */
#define F_LOWER 0x08     /* str.lower() of the character alone is not the character */
#define F_LOW_INERT 0x10 /* every character of its lowercase is inert under NFKC (see above) */
#define F_INERT 0x20     /* the character itself is inert under NFKC */
#define F_FORMAT 0x40    /* category Cf */
#define F_CONTEXT 0x80   /* lowercased by str.lower on the whole string (U+03A3, or a lowercase over 3 long) */

typedef struct {
    Py_UCS4 low[3];
    unsigned char nlow;
    unsigned char flags;
} Entry;

#define PAGE_BITS 8
#define PAGE_SIZE (1 << PAGE_BITS)
#define N_PAGES ((0x10FFFF >> PAGE_BITS) + 1)

static Entry *pages[N_PAGES];
static unsigned char ascii_map[128]; /* steps 1, 4 and 5 for an ASCII character: ' ' for a separator */

static PyObject *ud_category, *ud_combining, *ud_normalize;
static PyObject *s_lower, *s_isspace, *s_NFKC, *s_NFKD;

#define STACK 512 /* characters a call keeps on the C stack before it allocates */

/* ---- the character table ---- */

static int category_of(PyObject *ch, Py_UCS4 *major, int *format)
{
    PyObject *cat = PyObject_CallOneArg(ud_category, ch);
    if (cat == NULL)
        return -1;
    if (!PyUnicode_Check(cat) || PyUnicode_GET_LENGTH(cat) != 2) {
        Py_DECREF(cat);
        PyErr_SetString(PyExc_RuntimeError, "unicodedata.category returned an unexpected value");
        return -1;
    }
    *major = PyUnicode_READ_CHAR(cat, 0);
    if (format != NULL)
        *format = *major == 'C' && PyUnicode_READ_CHAR(cat, 1) == 'f';
    Py_DECREF(cat);
    return 0;
}

static int combining_of(PyObject *ch, long *out)
{
    PyObject *c = PyObject_CallOneArg(ud_combining, ch);
    if (c == NULL)
        return -1;
    *out = PyLong_AsLong(c);
    Py_DECREF(c);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

static PyObject *normalized(PyObject *form, PyObject *text)
{
    PyObject *args[2] = {form, text};
    return PyObject_Vectorcall(ud_normalize, args, 2, NULL);
}

static int hangul_vowel_or_trailing(Py_UCS4 c)
{
    /* the second characters of Hangul's algorithmic composition (the Unicode standard's VBase..VBase+20,
       TBase+1..TBase+27) */
    return (c >= 0x1161 && c <= 0x1175) || (c >= 0x11A8 && c <= 0x11C2);
}

/* 1 when code is inert under NFKC (see the file's comment), 0 when not, -1 on an error. */
static int inert(Py_UCS4 code)
{
    int result = 0;
    long ccc;
    Py_UCS4 major;
    PyObject *ch = PyUnicode_FromOrdinal((int)code), *nfkc = NULL, *nfkd = NULL, *first = NULL;
    if (ch == NULL)
        return -1;
    if (combining_of(ch, &ccc) < 0)
        goto error;
    if (ccc != 0)
        goto done;
    if ((nfkc = normalized(s_NFKC, ch)) == NULL)
        goto error;
    if (PyUnicode_Compare(nfkc, ch) != 0) {
        if (PyErr_Occurred())
            goto error;
        goto done;
    }
    if ((nfkd = normalized(s_NFKD, ch)) == NULL)
        goto error;
    if (PyUnicode_GET_LENGTH(nfkd) < 1)
        goto done;
    if ((first = PyUnicode_Substring(nfkd, 0, 1)) == NULL)
        goto error;
    if (combining_of(first, &ccc) < 0 || category_of(first, &major, NULL) < 0)
        goto error;
    result = ccc == 0 && major != 'M' && !hangul_vowel_or_trailing(PyUnicode_READ_CHAR(first, 0));
done:
    Py_XDECREF(first);
    Py_XDECREF(nfkd);
    Py_XDECREF(nfkc);
    Py_DECREF(ch);
    return result;
error:
    result = -1;
    goto done;
}

static const Entry *fill(Py_UCS4 code)
{
    Entry e;
    Py_ssize_t i, n;
    Py_UCS4 major;
    int format, in;
    PyObject *ch, *low = NULL, *space = NULL;
    Entry *page = pages[code >> PAGE_BITS];

    if (page == NULL) {
        page = PyMem_Calloc(PAGE_SIZE, sizeof(Entry));
        if (page == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        if (pages[code >> PAGE_BITS] == NULL)
            pages[code >> PAGE_BITS] = page;
        else {
            PyMem_Free(page);
            page = pages[code >> PAGE_BITS];
        }
    }
    memset(&e, 0, sizeof e);
    if ((ch = PyUnicode_FromOrdinal((int)code)) == NULL)
        return NULL;
    if ((low = PyObject_CallMethodNoArgs(ch, s_lower)) == NULL)
        goto error;
    n = PyUnicode_GET_LENGTH(low);
    if (n < 1 || n > 3 || code == 0x3A3) {
        e.flags |= F_CONTEXT | F_LOWER;
    }
    else {
        e.nlow = (unsigned char)n;
        e.flags |= F_LOW_INERT;
        for (i = 0; i < n; i++) {
            e.low[i] = PyUnicode_READ_CHAR(low, i);
            if ((in = inert(e.low[i])) < 0)
                goto error;
            if (!in)
                e.flags &= ~F_LOW_INERT;
        }
        if (n != 1 || e.low[0] != code)
            e.flags |= F_LOWER;
    }
    if ((space = PyObject_CallMethodNoArgs(ch, s_isspace)) == NULL)
        goto error;
    if (space == Py_True)
        e.flags |= F_WS;
    if (category_of(ch, &major, &format) < 0)
        goto error;
    if (major == 'M' || major == 'S' || major == 'P')
        e.flags |= F_SPACE;
    if (format)
        e.flags |= F_FORMAT;
    if ((in = inert(code)) < 0)
        goto error;
    if (in)
        e.flags |= F_INERT;
    e.flags |= F_KNOWN;
    page[code & (PAGE_SIZE - 1)] = e;
    Py_DECREF(space);
    Py_DECREF(low);
    Py_DECREF(ch);
    return &page[code & (PAGE_SIZE - 1)];
error:
    Py_XDECREF(space);
    Py_XDECREF(low);
    Py_DECREF(ch);
    return NULL;
}

static inline const Entry *entry(Py_UCS4 code)
{
    const Entry *page = pages[code >> PAGE_BITS];
    if (page != NULL && (page[code & (PAGE_SIZE - 1)].flags & F_KNOWN))
        return &page[code & (PAGE_SIZE - 1)];
    return fill(code);
}

/* ---- step 2: bracketed spans, in place; returns the new length ---- */

#define REMOVE_BRACKETS(NAME, T)                                                                                \
    static Py_ssize_t NAME(T *t, Py_ssize_t n)                                                                  \
    {                                                                                                           \
        Py_ssize_t r = 0, w = 0, j;                                                                             \
        /* [<\[][^>\]]*[>\]] : from an opening < or [ to the first > or ] after it */                           \
        while (r < n) {                                                                                         \
            if (t[r] == '<' || t[r] == '[') {                                                                   \
                for (j = r + 1; j < n && t[j] != '>' && t[j] != ']'; j++)                                       \
                    ;                                                                                           \
                if (j == n) { /* no closing one after it, so none after any later opening one either */         \
                    memmove(t + w, t + r, (size_t)(n - r) * sizeof(T));                                         \
                    w += n - r;                                                                                 \
                    break;                                                                                      \
                }                                                                                               \
                r = j + 1;                                                                                      \
                continue;                                                                                       \
            }                                                                                                   \
            t[w++] = t[r++];                                                                                    \
        }                                                                                                       \
        n = w;                                                                                                  \
        r = w = 0;                                                                                              \
        /* \(([^)]+?)\) : from ( to the first ) after it, at least one character between */                    \
        while (r < n) {                                                                                         \
            if (t[r] == '(' && r + 1 < n && t[r + 1] != ')') {                                                  \
                for (j = r + 2; j < n && t[j] != ')'; j++)                                                      \
                    ;                                                                                           \
                if (j == n) {                                                                                   \
                    memmove(t + w, t + r, (size_t)(n - r) * sizeof(T));                                         \
                    w += n - r;                                                                                 \
                    break;                                                                                      \
                }                                                                                               \
                r = j + 1;                                                                                      \
                continue;                                                                                       \
            }                                                                                                   \
            t[w++] = t[r++];                                                                                    \
        }                                                                                                       \
        return w;                                                                                               \
    }

REMOVE_BRACKETS(remove_brackets_1, Py_UCS1)
REMOVE_BRACKETS(remove_brackets_4, Py_UCS4)

/* ---- ASCII strings ---- */

static PyObject *normalize_ascii(const Py_UCS1 *s, Py_ssize_t n)
{
    Py_UCS1 stack_in[STACK], stack_out[STACK], *in = stack_in, *out = stack_out, *heap = NULL;
    Py_ssize_t i, w = 0;
    int pending = 0;
    PyObject *result;

    if (n > STACK) {
        if ((heap = PyMem_Malloc((size_t)n * 2)) == NULL)
            return PyErr_NoMemory();
        in = heap;
        out = heap + n;
    }
    /* brackets are not letters, so lowercasing first changes nothing about them */
    if (memchr(s, '[', (size_t)n) || memchr(s, '<', (size_t)n) || memchr(s, '(', (size_t)n)) {
        memcpy(in, s, (size_t)n);
        n = remove_brackets_1(in, n);
        s = in;
    }
    for (i = 0; i < n; i++) {
        Py_UCS1 m = ascii_map[s[i]];
        if (m == ' ')
            pending = 1;
        else {
            if (pending && w)
                out[w++] = ' ';
            pending = 0;
            out[w++] = m;
        }
    }
    result = PyUnicode_New(w, 127);
    if (result != NULL)
        memcpy(PyUnicode_1BYTE_DATA(result), out, (size_t)w);
    PyMem_Free(heap);
    return result;
}

/* ---- any string ---- */

/* Steps 4-6 as written, for text whose kept characters are not all lowercase: str.lower on the whole. */
static PyObject *symbols_lower_collapse(int kind, const void *data, Py_ssize_t n)
{
    Py_ssize_t i, w = 0;
    int pending = 0;
    PyObject *mapped = NULL, *lowered = NULL, *result = NULL;
    Py_UCS4 *buf = PyMem_Malloc(sizeof(Py_UCS4) * (size_t)(n ? n : 1)), *out = NULL;

    if (buf == NULL)
        return PyErr_NoMemory();
    for (i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        const Entry *e = entry(c);
        if (e == NULL)
            goto done;
        buf[i] = (e->flags & F_SPACE) ? ' ' : c;
    }
    if ((mapped = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, n)) == NULL)
        goto done;
    if ((lowered = PyObject_CallMethodNoArgs(mapped, s_lower)) == NULL)
        goto done;
    n = PyUnicode_GET_LENGTH(lowered);
    kind = PyUnicode_KIND(lowered);
    data = PyUnicode_DATA(lowered);
    if ((out = PyMem_Malloc(sizeof(Py_UCS4) * (size_t)(n ? n : 1))) == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        const Entry *e = entry(c);
        if (e == NULL)
            goto done;
        if (e->flags & F_WS)
            pending = 1;
        else {
            if (pending && w)
                out[w++] = ' ';
            pending = 0;
            out[w++] = c;
        }
    }
    result = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out, w);
done:
    PyMem_Free(out);
    PyMem_Free(buf);
    Py_XDECREF(lowered);
    Py_XDECREF(mapped);
    return result;
}

/* Steps 4-6 on text after NFKC (n characters of the given kind). */
static PyObject *symbols_collapse(int kind, const void *data, Py_ssize_t n)
{
    Py_ssize_t i, w = 0;
    int pending = 0;
    Py_UCS4 stack[STACK], *out = stack, *heap = NULL;
    PyObject *result = NULL;

    if (n > STACK) {
        if ((heap = PyMem_Malloc(sizeof(Py_UCS4) * (size_t)n)) == NULL)
            return PyErr_NoMemory();
        out = heap;
    }
    for (i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        const Entry *e = entry(c);
        if (e == NULL)
            goto done;
        if (e->flags & F_SPACE)
            pending = 1;
        else if (e->flags & F_LOWER) {
            result = symbols_lower_collapse(kind, data, n);
            goto done;
        }
        else if (e->flags & F_WS)
            pending = 1;
        else {
            if (pending && w)
                out[w++] = ' ';
            pending = 0;
            out[w++] = c;
        }
    }
    result = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out, w);
done:
    PyMem_Free(heap);
    return result;
}

static PyObject *normalize_string(PyObject *s, int strip_format)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(s), i, m = 0, cap;
    int kind = PyUnicode_KIND(s), all_inert = 1, opening = 0, context = 0;
    const void *data = PyUnicode_DATA(s);
    Py_UCS4 stack[STACK], *t = stack, *heap = NULL;
    PyObject *lowered = NULL, *text = NULL, *nfkc = NULL, *result = NULL;

    if (PyUnicode_IS_ASCII(s))
        return normalize_ascii(PyUnicode_1BYTE_DATA(s), n);

    /* step 1 (and format characters out first, for normalize_text), into t */
    cap = 3 * n;
    if (cap > STACK) {
        if ((heap = PyMem_Malloc(sizeof(Py_UCS4) * (size_t)cap)) == NULL)
            return PyErr_NoMemory();
        t = heap;
    }
    for (i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        const Entry *e = entry(c);
        if (e == NULL)
            goto done;
        if (strip_format && (e->flags & F_FORMAT))
            continue;
        if (e->flags & F_CONTEXT) {
            context = 1;
            break;
        }
        if (!(e->flags & F_LOW_INERT))
            all_inert = 0;
        if (e->nlow == 1) {
            Py_UCS4 l = e->low[0];
            opening |= l == '<' || l == '[' || l == '(';
            t[m++] = l;
        }
        else {
            Py_ssize_t k;
            for (k = 0; k < e->nlow; k++) {
                Py_UCS4 l = e->low[k];
                opening |= l == '<' || l == '[' || l == '(';
                t[m++] = l;
            }
        }
    }
    if (context) { /* str.lower on the whole (format characters out first) */
        PyObject *source = s;
        if (strip_format) {
            m = 0;
            for (i = 0; i < n; i++) {
                Py_UCS4 c = PyUnicode_READ(kind, data, i);
                const Entry *e = entry(c);
                if (e == NULL)
                    goto done;
                if (!(e->flags & F_FORMAT))
                    t[m++] = c;
            }
            if ((text = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, t, m)) == NULL)
                goto done;
            source = text;
        }
        if ((lowered = PyObject_CallMethodNoArgs(source, s_lower)) == NULL)
            goto done;
        n = PyUnicode_GET_LENGTH(lowered);
        if (n > cap) {
            PyMem_Free(heap);
            if ((heap = PyMem_Malloc(sizeof(Py_UCS4) * (size_t)n)) == NULL) {
                PyErr_NoMemory();
                goto done;
            }
            t = heap;
            cap = n;
        }
        kind = PyUnicode_KIND(lowered);
        data = PyUnicode_DATA(lowered);
        all_inert = 1;
        for (m = 0; m < n; m++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, m);
            const Entry *e = entry(c);
            if (e == NULL)
                goto done;
            if (!(e->flags & F_INERT))
                all_inert = 0;
            opening |= c == '<' || c == '[' || c == '(';
            t[m] = c;
        }
    }
    /* step 2 */
    if (opening)
        m = remove_brackets_4(t, m);
    /* step 3, then 4-6 */
    if (all_inert)
        result = symbols_collapse(PyUnicode_4BYTE_KIND, t, m);
    else {
        Py_XDECREF(text);
        if ((text = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, t, m)) == NULL)
            goto done;
        if ((nfkc = normalized(s_NFKC, text)) == NULL)
            goto done;
        result = symbols_collapse(PyUnicode_KIND(nfkc), PyUnicode_DATA(nfkc), PyUnicode_GET_LENGTH(nfkc));
    }
done:
    PyMem_Free(heap);
    Py_XDECREF(nfkc);
    Py_XDECREF(text);
    Py_XDECREF(lowered);
    return result;
}

static PyObject *not_text(PyObject *value)
{
    PyErr_Format(PyExc_TypeError, "a normalizer takes a str, got %R", value);
    return NULL;
}

static PyObject *fast_normalize(PyObject *module, PyObject *s)
{
    if (!PyUnicode_Check(s))
        return not_text(s);
    return normalize_string(s, 0);
}

static PyObject *fast_normalize_text(PyObject *module, PyObject *s)
{
    if (!PyUnicode_Check(s))
        return not_text(s);
    return normalize_string(s, 1);
}

static PyObject *fast_normalize_list(PyObject *module, PyObject *texts)
{
    Py_ssize_t i, n;
    PyObject *out;
    if (!PyList_Check(texts)) {
        PyErr_Format(PyExc_TypeError, "normalize_list takes a list of str, got %R", texts);
        return NULL;
    }
    n = PyList_GET_SIZE(texts);
    if ((out = PyList_New(n)) == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        PyObject *s = PyList_GET_ITEM(texts, i), *r;
        if (!PyUnicode_Check(s)) {
            Py_DECREF(out);
            return not_text(s);
        }
        Py_INCREF(s); /* the list may change under a call that runs Python code */
        r = normalize_string(s, 1);
        Py_DECREF(s);
        if (r == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, r);
        if (PyList_GET_SIZE(texts) != n) {
            Py_DECREF(out);
            PyErr_SetString(PyExc_RuntimeError, "the list changed size during normalize_list");
            return NULL;
        }
    }
    return out;
}

static PyMethodDef methods[] = {
    {"normalize", fast_normalize, METH_O,
     "normalize(s) -> transformers' BasicTextNormalizer()(s), whitespace collapsed to single spaces and stripped."},
    {"normalize_text", fast_normalize_text, METH_O,
     "normalize_text(s) -> normalize(s) after removing the format characters (category Cf)."},
    {"normalize_list", fast_normalize_list, METH_O,
     "normalize_list(texts) -> [normalize_text(s) for s in texts], for a list of str."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_basic_fast",
    "The basic normalizer in C (see asraudit/text/basic_normalizer.py and the comment atop _basic_fast.c).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__basic_fast(void)
{
    PyObject *ud, *module;
    int c;

    if ((ud = PyImport_ImportModule("unicodedata")) == NULL)
        return NULL;
    ud_category = PyObject_GetAttrString(ud, "category");
    ud_combining = PyObject_GetAttrString(ud, "combining");
    ud_normalize = PyObject_GetAttrString(ud, "normalize");
    Py_DECREF(ud);
    if (ud_category == NULL || ud_combining == NULL || ud_normalize == NULL)
        return NULL;
    if ((s_lower = PyUnicode_InternFromString("lower")) == NULL ||
        (s_isspace = PyUnicode_InternFromString("isspace")) == NULL ||
        (s_NFKC = PyUnicode_InternFromString("NFKC")) == NULL ||
        (s_NFKD = PyUnicode_InternFromString("NFKD")) == NULL)
        return NULL;
    /* ASCII: steps 1, 4 and 5 in one table, from the same character table */
    for (c = 0; c < 128; c++) {
        const Entry *e = entry((Py_UCS4)c), *l;
        if (e == NULL)
            return NULL;
        if (e->nlow != 1 || e->low[0] >= 128 || (e->flags & (F_CONTEXT | F_FORMAT))) {
            PyErr_SetString(PyExc_ImportError, "an ASCII character is a format character or lowercases to other than one ASCII character");
            return NULL;
        }
        if ((l = entry(e->low[0])) == NULL)
            return NULL;
        if (l->nlow != 1 || l->low[0] >= 128) {
            PyErr_SetString(PyExc_ImportError, "an ASCII character is a format character or lowercases to other than one ASCII character");
            return NULL;
        }
        ascii_map[c] = (l->flags & (F_SPACE | F_WS)) ? ' ' : (unsigned char)l->low[0];
    }
    module = PyModule_Create(&module_def);
    return module;
}
