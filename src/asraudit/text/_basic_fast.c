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
 * Everything this file knows about a character it asks this Python's str and unicodedata the first time the
 * character is seen, and keeps in a table of 256-character pages (no Unicode data is built in):
 *
 *   - its lowercase (str.lower of the character alone, 1 to 3 characters).  str.lower of a string is its
 *     characters' lowercases joined, except for U+03A3 (capital sigma, whose lowercase depends on its
 *     neighbours: CPython's only context rule), so a string holding U+03A3 goes through str.lower itself;
 *   - whether it is whitespace (str.isspace), of category M/S/P, or Cf (format characters, which
 *     normalize_text removes first, as asraudit's strip_format_characters does);
 *   - whether it is a "segment" for NFKC: combining class 0, and the first character of its NFKD is a starter
 *     that is neither a mark nor a Hangul vowel or trailing jamo (and, to be kept, its NFKC alone is at most 4
 *     characters; a longer one counts as no segment, which is always safe: see pieces).  NFKC of a text is the
 *     NFKC of its pieces joined, the text cut before each segment: a segment's decomposition starts with a
 *     starter, so canonical reordering does not cross the cut and nothing after the cut composes with
 *     anything before it; and that starter composes with nothing before it, because every character that is
 *     the second of a canonical pair is a mark, a non-starter or such a jamo (tests/test_basic_normalizer.py
 *     checks that over all of Unicode).  Cutting at fewer places is always exact too;
 *   - "fused": steps 1 and 3-5 of the character alone, when its lowercase is one character, a segment and no
 *     bracket, and every character those steps keep is its own lowercase and not whitespace (then step 5
 *     changes nothing), each character either kept or a space.
 *
 * A string is then one pass (FUSED below): a fused character writes its text, and a piece that is more than
 * one fused character (a letter and combining marks; "i" + U+0307, the lowercase of U+0130) writes the NFKC
 * of the piece through steps 4-5, asked of unicodedata once and kept in a table of pieces; spaces are
 * collapsed as they are written.  Brackets come out first, on the text itself (no character this pass takes
 * has a bracket in its lowercase, so the spans are the same before step 1 as after it).  A string holding a
 * character whose lowercase needs its neighbours or holds a bracket, or a piece whose result is not all
 * lowercase or is too long, takes the six steps one by one instead (normalize_steps: tables where they can
 * stand for a step, str.lower and unicodedata.normalize on the whole text where they cannot).
 *
 * ASCII strings (most text) have one 128-entry table for steps 1 and 3-5, made from the same character
 * table at import, and take the brackets apart only when they hold an opening one.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define F_KNOWN 0x01   /* the entry is filled */
#define F_SPACE 0x02   /* category M*, S* or P*: a space in step 4 */
#define F_WS 0x04      /* str.isspace() */
#define F_LOWER 0x08   /* str.lower() of the character alone is not the character */
#define F_FORMAT 0x10  /* category Cf */
#define F_CONTEXT 0x20 /* lowercased by str.lower on the whole string (U+03A3; a lowercase of over 3) */
#define F_SEGMENT 0x40 /* a segment for NFKC (see above) whose NFKC (in nfkc[]) is at most MAX_NFKC long */
#define F_FUSED 0x80   /* steps 1 and 3-5 of the character alone in out[] (see above) */
#define F_BRACKET 0x100 /* its lowercase holds one of < [ ( > ] ) */

#define MAX_LOW 3
#define MAX_NFKC 4
#define MAX_OUT 4

typedef struct {
    Py_UCS4 low[MAX_LOW];   /* str.lower of the character */
    Py_UCS4 nfkc[MAX_NFKC]; /* F_SEGMENT: NFKC of the character */
    Py_UCS4 out[MAX_OUT];   /* F_FUSED: NFKC of its lowercase, M/S/P and whitespace as ' ' */
    unsigned char nlow, nnfkc, nout;
    unsigned short flags;
} Entry;

#define PAGE_BITS 8
#define PAGE_SIZE (1 << PAGE_BITS)
#define N_PAGES ((0x10FFFF >> PAGE_BITS) + 1)

static Entry *pages[N_PAGES];
/* ASCII: steps 1 and 3-5 of the character in the low byte (' ' for a separator), 0x100 for '<', '[' and '(' */
static unsigned short ascii_table[128];
static unsigned char ascii_open[128]; /* '<', '[' and '(' */
static Py_UCS1 ascii_lower[128];      /* str.lower */

static PyObject *ud_category, *ud_combining, *ud_normalize;
static PyObject *s_lower, *s_isspace, *s_NFKC, *s_NFKD;

#define STACK 1024 /* characters a buffer keeps on the C stack before it is allocated */

/* ---- a character's properties, asked of str and unicodedata ---- */

typedef struct {
    Py_UCS4 low[MAX_LOW];
    Py_UCS4 nfkc[MAX_NFKC];
    int nlow, nnfkc, flags;
} Props;

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
    /* the second characters of Hangul's algorithmic composition (the standard's VBase..VBase+VCount-1 and
       TBase+1..TBase+TCount-1) */
    return (c >= 0x1161 && c <= 0x1175) || (c >= 0x11A8 && c <= 0x11C2);
}

/* Sets p->nfkc and F_SEGMENT when ch is a segment for NFKC (see the file's comment). 0, or -1 on an error. */
static int segment(PyObject *ch, Props *p)
{
    int rc = -1;
    long ccc;
    Py_UCS4 major;
    Py_ssize_t i, n;
    PyObject *nfkd = NULL, *first = NULL, *nfkc = NULL;

    if (combining_of(ch, &ccc) < 0)
        goto done;
    if (ccc != 0) {
        rc = 0;
        goto done;
    }
    if ((nfkd = normalized(s_NFKD, ch)) == NULL)
        goto done;
    if (PyUnicode_GET_LENGTH(nfkd) < 1) {
        rc = 0;
        goto done;
    }
    if ((first = PyUnicode_Substring(nfkd, 0, 1)) == NULL)
        goto done;
    if (combining_of(first, &ccc) < 0 || category_of(first, &major, NULL) < 0)
        goto done;
    rc = 0;
    if (ccc != 0 || major == 'M' || hangul_vowel_or_trailing(PyUnicode_READ_CHAR(first, 0)))
        goto done;
    if ((nfkc = normalized(s_NFKC, ch)) == NULL) {
        rc = -1;
        goto done;
    }
    n = PyUnicode_GET_LENGTH(nfkc);
    if (n < 1 || n > MAX_NFKC)
        goto done;
    for (i = 0; i < n; i++)
        p->nfkc[i] = PyUnicode_READ_CHAR(nfkc, i);
    p->nnfkc = (int)n;
    p->flags |= F_SEGMENT;
done:
    Py_XDECREF(nfkc);
    Py_XDECREF(first);
    Py_XDECREF(nfkd);
    return rc;
}

static int props(Py_UCS4 code, Props *p)
{
    int rc = -1, format;
    Py_ssize_t i, n;
    Py_UCS4 major;
    PyObject *ch, *low = NULL, *space = NULL;

    memset(p, 0, sizeof *p);
    if ((ch = PyUnicode_FromOrdinal((int)code)) == NULL)
        return -1;
    if ((low = PyObject_CallMethodNoArgs(ch, s_lower)) == NULL)
        goto done;
    n = PyUnicode_GET_LENGTH(low);
    if (n < 1 || n > MAX_LOW || code == 0x3A3)
        p->flags |= F_CONTEXT | F_LOWER;
    else {
        p->nlow = (int)n;
        for (i = 0; i < n; i++)
            p->low[i] = PyUnicode_READ_CHAR(low, i);
        if (n != 1 || p->low[0] != code)
            p->flags |= F_LOWER;
    }
    if ((space = PyObject_CallMethodNoArgs(ch, s_isspace)) == NULL)
        goto done;
    if (space == Py_True)
        p->flags |= F_WS;
    if (category_of(ch, &major, &format) < 0)
        goto done;
    if (major == 'M' || major == 'S' || major == 'P')
        p->flags |= F_SPACE;
    if (format)
        p->flags |= F_FORMAT;
    rc = segment(ch, p);
done:
    Py_XDECREF(space);
    Py_XDECREF(low);
    Py_DECREF(ch);
    return rc;
}

/* ---- the character table ---- */

static const Entry *fill(Py_UCS4 code)
{
    Entry e;
    Props p, q, r;
    int i, j, k, fused;
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
    if (props(code, &p) < 0)
        return NULL;
    memset(&e, 0, sizeof e);
    e.flags = (unsigned short)p.flags;
    e.nlow = (unsigned char)p.nlow;
    memcpy(e.low, p.low, sizeof e.low);
    e.nnfkc = (unsigned char)p.nnfkc;
    memcpy(e.nfkc, p.nfkc, sizeof e.nfkc);
    for (i = 0; i < p.nlow; i++)
        if (p.low[i] == '<' || p.low[i] == '[' || p.low[i] == '(' || p.low[i] == '>' || p.low[i] == ']' ||
            p.low[i] == ')')
            e.flags |= F_BRACKET;
    /* fused: a one-character lowercase that is a segment, its NFKC through steps 4 and 5 */
    fused = !(p.flags & F_CONTEXT) && !(e.flags & F_BRACKET) && p.nlow == 1;
    if (fused) {
        if (p.low[0] == code)
            q = p;
        else if (props(p.low[0], &q) < 0)
            return NULL;
        fused = (q.flags & F_SEGMENT) != 0;
        for (j = 0; fused && j < q.nnfkc; j++) {
            if (e.nout == MAX_OUT) {
                fused = 0;
                break;
            }
            if (q.nfkc[j] == p.low[0])
                r = q;
            else if (props(q.nfkc[j], &r) < 0)
                return NULL;
            if (r.flags & F_SPACE)
                e.out[e.nout++] = ' ';
            else if (r.flags & F_LOWER)
                fused = 0;
            else
                e.out[e.nout++] = (r.flags & F_WS) ? ' ' : q.nfkc[j];
        }
    }
    if (fused)
        e.flags |= F_FUSED;
    else {
        e.nout = 0;
        for (k = 0; k < MAX_OUT; k++)
            e.out[k] = 0;
    }
    e.flags |= F_KNOWN;
    page[code & (PAGE_SIZE - 1)] = e;
    return &page[code & (PAGE_SIZE - 1)];
}

static inline const Entry *entry(Py_UCS4 code)
{
    const Entry *page = pages[code >> PAGE_BITS];
    if (page != NULL && (page[code & (PAGE_SIZE - 1)].flags & F_KNOWN))
        return &page[code & (PAGE_SIZE - 1)];
    return fill(code);
}

/* A buffer of Py_UCS4 on the C stack, or allocated when larger. */
typedef struct {
    Py_UCS4 *p;
    Py_UCS4 *heap;
} Buffer;

static int buffer_init(Buffer *b, Py_UCS4 *stack, Py_ssize_t stack_size, Py_ssize_t need)
{
    b->heap = NULL;
    b->p = stack;
    if (need > stack_size) {
        if (need > PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(Py_UCS4) ||
            (b->heap = PyMem_Malloc(sizeof(Py_UCS4) * (size_t)need)) == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        b->p = b->heap;
    }
    return 0;
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

/* Steps 1 and 3-6 of ASCII text into out (n characters): each character through the table, a space written
   only after a character that is not one (so none leads or repeats), a trailing one dropped; returns the
   length, and sets *opening when the text holds an opening bracket.  No branch in the loop. */
static Py_ssize_t ascii_steps(const Py_UCS1 *s, Py_ssize_t n, Py_UCS1 *out, unsigned *opening)
{
    Py_ssize_t i, w = 0;
    unsigned open = 0, prev = ' ';
    for (i = 0; i < n; i++) {
        unsigned v = ascii_table[s[i]], c = v & 0xFF;
        open |= v;
        out[w] = (Py_UCS1)c;
        w += !(c == ' ' && prev == ' ');
        prev = c;
    }
    *opening = open >> 8;
    return w - (w > 0 && out[w - 1] == ' ');
}

static PyObject *normalize_ascii(const Py_UCS1 *s, Py_ssize_t n)
{
    Py_UCS1 stack[2 * STACK], *out = stack, *heap = NULL;
    Py_ssize_t w;
    unsigned opening;
    PyObject *result;

    if (n > STACK) {
        if ((heap = PyMem_Malloc(2 * (size_t)n)) == NULL)
            return PyErr_NoMemory();
        out = heap;
    }
    w = ascii_steps(s, n, out, &opening);
    if (opening) { /* brackets are not letters: lowercasing first changes nothing about them */
        Py_UCS1 *t = out + n;
        memcpy(t, s, (size_t)n);
        n = remove_brackets_1(t, n);
        w = ascii_steps(t, n, out, &opening);
    }
    result = PyUnicode_New(w, 127);
    if (result != NULL)
        memcpy(PyUnicode_1BYTE_DATA(result), out, (size_t)w);
    PyMem_Free(heap);
    return result;
}

/* ---- pieces: a segment and the characters that are not segments after it ---- */

/* After step 1, NFKC of the text is the NFKC of its pieces joined: the text cut before every segment (see the
   file's comment).  A piece that is not one fused character (a letter and combining marks, "i" + U+0307 from
   U+0130) has its steps 3-5 kept here, in a direct-mapped table (a slot holds the last piece hashed to it). */

#define PIECE_KEY 8
#define PIECE_OUT 24
#define PIECE_SLOTS 4096

typedef struct {
    Py_UCS4 key[PIECE_KEY];
    Py_UCS4 out[PIECE_OUT];
    unsigned char nkey, nout, ok, used;
} Piece;

static Piece *pieces;

/* Steps 3-5 of the piece key[0:nkey] into *p; p->ok is 0 where a kept character is not its own lowercase (then
   the string takes the steps one by one) or the result is too long.  0, or -1 on an error. */
static int piece_compute(const Py_UCS4 *key, int nkey, Piece *p)
{
    Py_ssize_t i, n;
    PyObject *text, *nfkc;

    memset(p, 0, sizeof *p);
    memcpy(p->key, key, sizeof(Py_UCS4) * (size_t)nkey);
    p->nkey = (unsigned char)nkey;
    p->used = 1;
    if ((text = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, key, nkey)) == NULL)
        return -1;
    nfkc = normalized(s_NFKC, text);
    Py_DECREF(text);
    if (nfkc == NULL)
        return -1;
    n = PyUnicode_GET_LENGTH(nfkc);
    p->ok = n <= PIECE_OUT;
    for (i = 0; p->ok && i < n; i++) {
        Py_UCS4 x = PyUnicode_READ_CHAR(nfkc, i);
        const Entry *e = entry(x);
        if (e == NULL) {
            Py_DECREF(nfkc);
            return -1;
        }
        if (e->flags & F_SPACE)
            x = ' ';
        else if (e->flags & F_LOWER)
            p->ok = 0;
        else if (e->flags & F_WS)
            x = ' ';
        p->out[p->nout++] = x;
    }
    if (!p->ok)
        p->nout = 0;
    Py_DECREF(nfkc);
    return 0;
}

/* The piece key[0:nkey]: its slot, or *local where computed (and copied into its slot). NULL on an error. */
static const Piece *piece(const Py_UCS4 *key, int nkey, Piece *local)
{
    unsigned long h = 2166136261u;
    int i;
    Piece *slot;
    for (i = 0; i < nkey; i++)
        h = (h ^ key[i]) * 16777619u;
    if (pieces == NULL && (pieces = PyMem_Calloc(PIECE_SLOTS, sizeof(Piece))) == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    slot = &pieces[(h ^ (h >> 15)) & (PIECE_SLOTS - 1)];
    if (slot->used && slot->nkey == nkey && memcmp(slot->key, key, sizeof(Py_UCS4) * (size_t)nkey) == 0)
        return slot;
    if (piece_compute(key, nkey, local) < 0)
        return NULL;
    *slot = *local;
    return local;
}

/* ---- strings of fused characters and pieces: one pass, then the spaces collapsed ---- */

/* Steps 1 and 3-6 into out (cap characters), spaces collapsed as they are written (as in ascii_steps): 1 when
   done (*len set); 2 when the text holds an opening bracket (and `brackets` is 0: they have not been removed);
   0 when the string takes the steps one by one (a character whose lowercase needs its neighbours or holds a
   bracket, a piece whose result is not all lowercase, a piece or a result too long); -1 on an error.
   piece_w and piece_prev are where the current piece's output starts and the character written before it;
   piece_i is the index of the fused character that began it (-1: key[0:nkey] holds it). */
#define EMIT(x)                                                                                                \
    do {                                                                                                       \
        Py_UCS4 x_ = (x);                                                                                      \
        out[w] = x_;                                                                                           \
        w += !(x_ == ' ' && prev == ' ');                                                                      \
        prev = x_;                                                                                             \
    } while (0)

#define FUSED(NAME, T)                                                                                         \
    static int NAME(const T *s, Py_ssize_t n, int strip, int brackets, Py_UCS4 *out, Py_ssize_t cap,           \
                    Py_ssize_t *len)                                                                           \
    {                                                                                                          \
        Py_ssize_t i, w = 0, piece_w = 0, piece_i = -1;                                                        \
        Py_UCS4 key[PIECE_KEY], prev = ' ', piece_prev = ' ';                                                  \
        int nkey = 0, k;                                                                                       \
        Piece local;                                                                                           \
        for (i = 0; i < n; i++) {                                                                              \
            Py_UCS4 c = s[i];                                                                                  \
            const Entry *e;                                                                                    \
            if (c < 128) {                                                                                     \
                if ((!brackets && ascii_open[c]) || w >= cap)                                                  \
                    return ascii_open[c] && !brackets ? 2 : 0;                                                 \
                piece_w = w;                                                                                   \
                piece_prev = prev;                                                                             \
                piece_i = i;                                                                                   \
                EMIT((Py_UCS1)ascii_table[c]);                                                                 \
                continue;                                                                                      \
            }                                                                                                  \
            if ((e = entry(c)) == NULL)                                                                        \
                return -1;                                                                                     \
            if (strip && (e->flags & F_FORMAT))                                                                \
                continue;                                                                                      \
            if (e->flags & F_FUSED) {                                                                          \
                if (w + e->nout > cap)                                                                         \
                    return 0;                                                                                  \
                piece_w = w;                                                                                   \
                piece_prev = prev;                                                                             \
                piece_i = i;                                                                                   \
                for (k = 0; k < e->nout; k++)                                                                  \
                    EMIT(e->out[k]);                                                                           \
                continue;                                                                                      \
            }                                                                                                  \
            if (e->flags & (F_CONTEXT | F_BRACKET))                                                            \
                return 0;                                                                                      \
            for (k = 0; k < e->nlow; k++) {                                                                    \
                Py_UCS4 x = e->low[k];                                                                         \
                const Entry *ex = entry(x);                                                                    \
                const Piece *pc;                                                                               \
                int j;                                                                                         \
                if (ex == NULL)                                                                                \
                    return -1;                                                                                 \
                if (ex->flags & F_SEGMENT) {                                                                   \
                    piece_w = w;                                                                               \
                    piece_prev = prev;                                                                         \
                    piece_i = -1;                                                                              \
                    key[0] = x;                                                                                \
                    nkey = 1;                                                                                  \
                }                                                                                              \
                else {                                                                                         \
                    if (piece_i >= 0) { /* the piece began with a fused character: its lowercase */            \
                        Py_UCS4 b = s[piece_i];                                                                \
                        key[0] = b < 128 ? ascii_lower[b] : entry(b)->low[0];                                  \
                        nkey = 1;                                                                              \
                        piece_i = -1;                                                                          \
                    }                                                                                          \
                    if (nkey == PIECE_KEY)                                                                     \
                        return 0;                                                                              \
                    key[nkey++] = x;                                                                           \
                    w = piece_w;                                                                               \
                    prev = piece_prev;                                                                         \
                }                                                                                              \
                if ((pc = piece(key, nkey, &local)) == NULL)                                                   \
                    return -1;                                                                                 \
                if (!pc->ok || w + pc->nout > cap)                                                             \
                    return 0;                                                                                  \
                for (j = 0; j < pc->nout; j++)                                                                 \
                    EMIT(pc->out[j]);                                                                          \
            }                                                                                                  \
        }                                                                                                      \
        *len = w - (w > 0 && out[w - 1] == ' ');                                                               \
        return 1;                                                                                              \
    }

FUSED(fused_1, Py_UCS1)
FUSED(fused_2, Py_UCS2)
FUSED(fused_4, Py_UCS4)

/* ---- any string, the steps one by one ---- */

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
    Py_UCS4 stack[STACK];
    Buffer out;
    PyObject *result = NULL;

    if (buffer_init(&out, stack, STACK, n) < 0)
        return NULL;
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
                out.p[w++] = ' ';
            pending = 0;
            out.p[w++] = c;
        }
    }
    result = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out.p, w);
done:
    PyMem_Free(out.heap);
    return result;
}

static PyObject *normalize_steps(PyObject *s, int strip)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(s), i, m = 0, total = 0;
    int kind = PyUnicode_KIND(s), opening = 0, context = 0, segments = 1, same = 1;
    const void *data = PyUnicode_DATA(s);
    Py_UCS4 stack_t[STACK], stack_u[STACK];
    Buffer t, u = {NULL, NULL};
    PyObject *lowered = NULL, *text = NULL, *nfkc = NULL, *result = NULL;

    if (n > PY_SSIZE_T_MAX / MAX_LOW / MAX_NFKC / (Py_ssize_t)sizeof(Py_UCS4))
        return PyErr_NoMemory();
    /* step 1 (format characters out first, for normalize_text), into t */
    if (buffer_init(&t, stack_t, STACK, MAX_LOW * n) < 0)
        return NULL;
    for (i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        const Entry *e = entry(c);
        int k;
        if (e == NULL)
            goto done;
        if (strip && (e->flags & F_FORMAT))
            continue;
        if (e->flags & F_CONTEXT) {
            context = 1;
            break;
        }
        for (k = 0; k < e->nlow; k++)
            t.p[m++] = e->low[k];
    }
    if (context) { /* str.lower on the whole (format characters out first) */
        PyObject *source = s;
        if (strip) {
            m = 0;
            for (i = 0; i < n; i++) {
                Py_UCS4 c = PyUnicode_READ(kind, data, i);
                const Entry *e = entry(c);
                if (e == NULL)
                    goto done;
                if (!(e->flags & F_FORMAT))
                    t.p[m++] = c;
            }
            if ((text = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, t.p, m)) == NULL)
                goto done;
            source = text;
        }
        if ((lowered = PyObject_CallMethodNoArgs(source, s_lower)) == NULL)
            goto done;
        m = PyUnicode_GET_LENGTH(lowered);
        if (m > MAX_LOW * n) { /* not in any Unicode so far */
            PyErr_SetString(PyExc_RuntimeError, "a lowercase over three times the text's length");
            goto done;
        }
        for (i = 0; i < m; i++)
            t.p[i] = PyUnicode_READ_CHAR(lowered, i);
    }
    for (i = 0; i < m; i++)
        opening |= t.p[i] == '<' || t.p[i] == '[' || t.p[i] == '(';
    /* step 2 */
    if (opening)
        m = remove_brackets_4(t.p, m);
    /* step 3: the characters' own NFKC where all are segments, else unicodedata's */
    for (i = 0; i < m; i++) {
        const Entry *e = entry(t.p[i]);
        if (e == NULL)
            goto done;
        if (!(e->flags & F_SEGMENT)) {
            segments = 0;
            break;
        }
        total += e->nnfkc;
        same &= e->nnfkc == 1 && e->nfkc[0] == t.p[i];
    }
    if (segments && same) /* then steps 4-6 */
        result = symbols_collapse(PyUnicode_4BYTE_KIND, t.p, m);
    else if (segments) {
        Py_ssize_t w = 0;
        if (buffer_init(&u, stack_u, STACK, total) < 0)
            goto done;
        for (i = 0; i < m; i++) {
            const Entry *e = entry(t.p[i]); /* known: looked up above */
            int k;
            for (k = 0; k < e->nnfkc; k++)
                u.p[w++] = e->nfkc[k];
        }
        result = symbols_collapse(PyUnicode_4BYTE_KIND, u.p, w);
    }
    else {
        Py_XDECREF(text);
        if ((text = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, t.p, m)) == NULL)
            goto done;
        if ((nfkc = normalized(s_NFKC, text)) == NULL)
            goto done;
        result = symbols_collapse(PyUnicode_KIND(nfkc), PyUnicode_DATA(nfkc), PyUnicode_GET_LENGTH(nfkc));
    }
done:
    PyMem_Free(u.heap);
    PyMem_Free(t.heap);
    Py_XDECREF(nfkc);
    Py_XDECREF(text);
    Py_XDECREF(lowered);
    return result;
}

#define FUSED_STACK 2048

/* The one pass over a string of fused characters and pieces: 1 with *result set, 0 when the string takes the
   steps one by one, -1 on an error (its buffers are off the stack before those steps run). */
static int normalize_fused(PyObject *s, int strip, PyObject **result)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(s), w = 0, cap, i, m;
    Py_UCS4 stack[FUSED_STACK], stack_t[STACK];
    Buffer out, t = {NULL, NULL};
    int rc, kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);

    if (n > PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(Py_UCS4) / MAX_OUT - 1) {
        PyErr_NoMemory();
        return -1;
    }
    cap = MAX_OUT * n + 8;
    if (buffer_init(&out, stack, FUSED_STACK, cap) < 0)
        return -1;
    switch (kind) {
    case PyUnicode_1BYTE_KIND:
        rc = fused_1(data, n, strip, 0, out.p, cap, &w);
        break;
    case PyUnicode_2BYTE_KIND:
        rc = fused_2(data, n, strip, 0, out.p, cap, &w);
        break;
    default:
        rc = fused_4(data, n, strip, 0, out.p, cap, &w);
        break;
    }
    if (rc == 2) {
        /* Brackets, on the text itself: no character taken here has a lowercase holding a bracket, so the
           spans are the same characters before step 1 as after it (format characters out first). */
        if (buffer_init(&t, stack_t, STACK, n) < 0) {
            rc = -1;
            goto done;
        }
        for (i = m = 0; i < n; i++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, i);
            if (strip && c >= 128) {
                const Entry *e = entry(c);
                if (e == NULL) {
                    rc = -1;
                    goto done;
                }
                if (e->flags & F_FORMAT)
                    continue;
            }
            t.p[m++] = c;
        }
        m = remove_brackets_4(t.p, m);
        rc = fused_4(t.p, m, 0, 1, out.p, cap, &w);
    }
    if (rc == 1) {
        if ((*result = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out.p, w)) == NULL)
            rc = -1;
    }
done:
    PyMem_Free(t.heap);
    PyMem_Free(out.heap);
    return rc;
}

static PyObject *normalize_string(PyObject *s, int strip)
{
    PyObject *result = NULL;
    int rc;

    if (PyUnicode_IS_ASCII(s)) /* no ASCII character is a format character (checked at import) */
        return normalize_ascii(PyUnicode_1BYTE_DATA(s), PyUnicode_GET_LENGTH(s));
    rc = normalize_fused(s, strip, &result);
    if (rc == 0)
        return normalize_steps(s, strip);
    return rc > 0 ? result : NULL;
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
        PyObject *s, *r;
        if (i >= PyList_GET_SIZE(texts)) {
            Py_DECREF(out);
            PyErr_SetString(PyExc_RuntimeError, "the list changed size during normalize_list");
            return NULL;
        }
        s = PyList_GET_ITEM(texts, i);
        if (!PyUnicode_Check(s)) {
            Py_DECREF(out);
            return not_text(s);
        }
        Py_INCREF(s);
        r = normalize_string(s, 1);
        Py_DECREF(s);
        if (r == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, r);
    }
    return out;
}

#define STRIP_FORMAT(NAME, T)                                                                                  \
    /* the number of format characters in s[0:n], the first at *first */                                      \
    static Py_ssize_t NAME(const T *s, Py_ssize_t n, Py_ssize_t *first)                                        \
    {                                                                                                          \
        Py_ssize_t i, count = 0;                                                                               \
        for (i = 0; i < n; i++) {                                                                              \
            const Entry *e;                                                                                    \
            if (s[i] < 128)                                                                                    \
                continue;                                                                                      \
            if ((e = entry(s[i])) == NULL)                                                                     \
                return -1;                                                                                     \
            if (e->flags & F_FORMAT) {                                                                         \
                if (count++ == 0)                                                                              \
                    *first = i;                                                                                \
            }                                                                                                  \
        }                                                                                                      \
        return count;                                                                                          \
    }

STRIP_FORMAT(format_count_1, Py_UCS1)
STRIP_FORMAT(format_count_2, Py_UCS2)
STRIP_FORMAT(format_count_4, Py_UCS4)

static PyObject *fast_strip_format(PyObject *module, PyObject *s)
{
    Py_ssize_t n, count, first = 0, i, w;
    int kind;
    const void *data;
    Py_UCS4 stack[STACK];
    Buffer out;
    PyObject *result;

    if (!PyUnicode_Check(s))
        return not_text(s);
    if (PyUnicode_IS_ASCII(s)) /* no ASCII character is a format character (checked at import) */
        return Py_NewRef(s);
    n = PyUnicode_GET_LENGTH(s);
    kind = PyUnicode_KIND(s);
    data = PyUnicode_DATA(s);
    count = kind == PyUnicode_1BYTE_KIND   ? format_count_1(data, n, &first)
            : kind == PyUnicode_2BYTE_KIND ? format_count_2(data, n, &first)
                                           : format_count_4(data, n, &first);
    if (count <= 0)
        return count < 0 ? NULL : Py_NewRef(s);
    if (buffer_init(&out, stack, STACK, n - count) < 0)
        return NULL;
    for (i = 0; i < first; i++)
        out.p[i] = PyUnicode_READ(kind, data, i);
    for (w = first; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c < 128 || !(entry(c)->flags & F_FORMAT)) /* every non-ASCII one was looked up above */
            out.p[w++] = c;
    }
    result = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out.p, w);
    PyMem_Free(out.heap);
    return result;
}

static PyMethodDef methods[] = {
    {"normalize", fast_normalize, METH_O,
     "normalize(s) -> transformers' BasicTextNormalizer()(s), whitespace collapsed to single spaces and stripped."},
    {"normalize_text", fast_normalize_text, METH_O,
     "normalize_text(s) -> normalize(s) after removing the format characters (category Cf)."},
    {"strip_format", fast_strip_format, METH_O,
     "strip_format(s) -> s without its format characters (category Cf); s itself when it has none."},
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
    PyObject *ud;
    int c;

    if ((ud = PyImport_ImportModule("unicodedata")) == NULL)
        return NULL;
    Py_XSETREF(ud_category, PyObject_GetAttrString(ud, "category"));
    Py_XSETREF(ud_combining, PyObject_GetAttrString(ud, "combining"));
    Py_XSETREF(ud_normalize, PyObject_GetAttrString(ud, "normalize"));
    Py_DECREF(ud);
    if (ud_category == NULL || ud_combining == NULL || ud_normalize == NULL)
        return NULL;
    if ((s_lower = PyUnicode_InternFromString("lower")) == NULL ||
        (s_isspace = PyUnicode_InternFromString("isspace")) == NULL ||
        (s_NFKC = PyUnicode_InternFromString("NFKC")) == NULL ||
        (s_NFKD = PyUnicode_InternFromString("NFKD")) == NULL)
        return NULL;
    /* ASCII: steps 1 and 3-5 of each character alone, from the same character table */
    for (c = 0; c < 128; c++) {
        const Entry *e = entry((Py_UCS4)c), *l;
        if (e == NULL)
            return NULL;
        if ((e->flags & (F_CONTEXT | F_FORMAT)) || !(e->flags & F_SEGMENT) || e->nlow != 1 || e->low[0] >= 128)
            goto not_simple;
        if ((l = entry(e->low[0])) == NULL)
            return NULL;
        if (!(l->flags & F_SEGMENT) || l->nnfkc != 1 || l->nfkc[0] != e->low[0] ||
            (!(l->flags & (F_SPACE | F_WS)) && (l->flags & F_LOWER)))
            goto not_simple;
        ascii_lower[c] = (Py_UCS1)e->low[0];
        ascii_open[c] = c == '<' || c == '[' || c == '(';
        ascii_table[c] = (unsigned short)((l->flags & (F_SPACE | F_WS)) ? ' ' : e->low[0]) |
                         (ascii_open[c] ? 0x100 : 0);
    }
    return PyModule_Create(&module_def);
not_simple:
    PyErr_SetString(PyExc_ImportError, "an ASCII character that is not its own NFKC, lowercases to another "
                                       "character, or is a format character");
    return NULL;
}
