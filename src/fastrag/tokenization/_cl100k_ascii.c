/*
 * fastrag.tokenization._cl100k_ascii: cl100k_base token counts of ASCII text, by pre-tokens.
 *
 * Why this is written by hand (and in C): counting is the largest single cost of packing
 * (a fifth of a Markdown split). ``_pretokens.PreTokenCounter`` counts with Python's
 * ``re.findall`` and a dict of per-pre-token counts, and most of that time goes to making a
 * Python string per pre-token, hashing it and freeing it again. No library counts cl100k
 * tokens without that, and gives the split points and head/tail counts ``prepare_many``
 * needs: tiktoken's own encoder (one backtracking-regex pass) is slower than the Python
 * path, and bpe-openai returns only a count. Here the pattern is a small state machine over
 * the bytes of ASCII text, and the memo is a hash table keyed by the bytes themselves.
 *
 * Exactness. On ASCII text cl100k's pattern
 *
 *     '(?i:[sdmt]|ll|ve|re) | [^\r\n\p{L}\p{N}]?+\p{L}++ | \p{N}{1,3}+
 *     | ?[^\s\p{L}\p{N}]++[\r\n]*+ | \s++$ | \s*[\r\n] | \s+(?!\S) | \s
 *
 * has letters [A-Za-z], digits [0-9] and white space [\t\n\v\f\r ] (Unicode White_Space:
 * \x1c-\x1f are not), and ``piece_end`` below decides, at each position, which alternative
 * matches first and where it ends, as the leftmost-first regex does. Each count is the
 * encoder's own: a pre-token's BPE (``encode_piece``, tiktoken's ``encode_single_piece``)
 * runs on the first occurrence of each distinct pre-token and is remembered. The module
 * is an accelerator only: ``_pretokens`` keeps the regex path (used for non-ASCII text,
 * without a C compiler and under FASTRAG_PURE_PYTHON=1), and tests compare the two on real
 * documents, on every short ASCII text and on generated text.
 *
 * Hostile input: every read is bounds-checked against the text's length; a pre-token
 * longer than MEMO_PIECE is counted but not remembered, and the memo starts over after
 * MEMO_ENTRIES entries, so memory stays bounded (a few MB) whatever the text. The hash is
 * not keyed, so text could be made of pre-tokens that collide: a piece is looked for, and
 * stored, only within MAX_PROBES slots of its home, so collisions cost at most that many
 * comparisons and a BPE call each (a piece not found is counted, never miscounted).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MEMO_PIECE 64          /* longest pre-token remembered (as _pretokens._PIECE_LIMIT) */
#define MEMO_ENTRIES (1 << 16) /* entries after which the memo starts over (_MEMO_ENTRIES) */
#define FIRST_SLOTS (1 << 10)
#define MAX_PROBES 32          /* slots looked at from a piece's home slot, at most */

enum { LETTER = 1, DIGIT = 2, SPACE = 4, NEWLINE = 8, PY_ISSPACE = 16 };

/* Character classes of the 128 ASCII characters (filled once at import). PY_ISSPACE is
 * ``str.isspace``, which the split-point rule consults: it also holds \x1c-\x1f. */
static uint8_t CLASS[128];

static void
fill_classes(void)
{
    for (int c = 'A'; c <= 'Z'; c++) {
        CLASS[c] |= LETTER;
        CLASS[c + ('a' - 'A')] |= LETTER;
    }
    for (int c = '0'; c <= '9'; c++) {
        CLASS[c] |= DIGIT;
    }
    static const char spaces[] = "\t\n\v\f\r ";
    for (const char *s = spaces; *s; s++) {
        CLASS[(unsigned char)*s] |= SPACE | PY_ISSPACE;
    }
    for (int c = 0x1c; c <= 0x1f; c++) {
        CLASS[c] |= PY_ISSPACE;
    }
    CLASS['\r'] |= NEWLINE;
    CLASS['\n'] |= NEWLINE;
}

/* Strings are always "ready" from 3.12 on, where the macro is deprecated. */
#if PY_VERSION_HEX >= 0x030C0000
#define READY(text) 0
#else
#define READY(text) PyUnicode_READY(text)
#endif

#define HAS(c, kind) (CLASS[(c)] & (kind))
#define IS_OTHER(c) (!HAS((c), LETTER | DIGIT | SPACE))

static inline int
lower(uint8_t c)
{
    return HAS(c, LETTER) ? (c | 0x20) : c;
}

/* End of the pre-token that starts at ``p`` (p < n): the alternatives in the pattern's
 * order; each returns as soon as it matches, as leftmost-first alternation does. */
static Py_ssize_t
piece_end(const uint8_t *s, Py_ssize_t p, Py_ssize_t n)
{
    uint8_t c = s[p];
    Py_ssize_t q;

    /* '(?i:[sdmt]|ll|ve|re) */
    if (c == '\'' && p + 1 < n) {
        int a = lower(s[p + 1]);
        if (a == 's' || a == 'd' || a == 'm' || a == 't') {
            return p + 2;
        }
        if (p + 2 < n) {
            int b = lower(s[p + 2]);
            if ((a == 'l' && b == 'l') || (a == 'v' && b == 'e') || (a == 'r' && b == 'e')) {
                return p + 3;
            }
        }
    }
    /* [^\r\n\p{L}\p{N}]?+\p{L}++ : the optional character is possessive, so a character of
     * its class must be taken, and a letter must follow it. */
    if (HAS(c, LETTER)) {
        for (q = p + 1; q < n && HAS(s[q], LETTER); q++) {
        }
        return q;
    }
    if (!HAS(c, NEWLINE | DIGIT) && p + 1 < n && HAS(s[p + 1], LETTER)) {
        for (q = p + 2; q < n && HAS(s[q], LETTER); q++) {
        }
        return q;
    }
    /* \p{N}{1,3}+ */
    if (HAS(c, DIGIT)) {
        for (q = p + 1; q < n && q < p + 3 && HAS(s[q], DIGIT); q++) {
        }
        return q;
    }
    /* " ?[^\s\p{L}\p{N}]++[\r\n]*+" : the space is optional (not possessive), so it is taken
     * only when a character of the class follows it. */
    q = (c == ' ' && p + 1 < n && IS_OTHER(s[p + 1])) ? p + 1 : p;
    if (IS_OTHER(s[q])) {
        for (q++; q < n && IS_OTHER(s[q]); q++) {
        }
        for (; q < n && HAS(s[q], NEWLINE); q++) {
        }
        return q;
    }
    /* Only white space is left (every other character matched above). */
    Py_ssize_t end;
    for (end = p + 1; end < n && HAS(s[end], SPACE); end++) {
    }
    if (end == n) {
        return n; /* \s++$ */
    }
    for (q = end - 1; q >= p; q--) {
        if (HAS(s[q], NEWLINE)) {
            return q + 1; /* \s*[\r\n] : up to the run's last newline */
        }
    }
    if (end - p >= 2) {
        return end - 1; /* \s+(?!\S) : all but the last, which precedes non-space */
    }
    return p + 1; /* \s */
}

/* Whether a split point (``_cl100k_cut``) lies between s[b - 1] and s[b]. */
static inline int
is_split(const uint8_t *s, Py_ssize_t b)
{
    uint8_t before = s[b - 1], after = s[b];
    return (HAS(before, LETTER) && !HAS(after, LETTER)) ||
           (HAS(before, NEWLINE) && !HAS(after, PY_ISSPACE));
}

/* ---- the memo: pre-token bytes -> count, open addressing ---- */

typedef struct {
    uint64_t hash;
    uint32_t offset; /* into the arena */
    uint32_t length; /* 0: empty slot */
    Py_ssize_t count;
} Slot;

typedef struct {
    PyObject_HEAD
    PyObject *encode_piece;
    Slot *slots;
    size_t mask; /* slots - 1 (a power of two) */
    size_t used;
    char *arena;
    size_t arena_used;
    size_t arena_size;
} AsciiCounter;

static inline uint64_t
hash_bytes(const uint8_t *s, Py_ssize_t n)
{
    uint64_t h = 14695981039346656037ULL; /* FNV-1a, 64 bits */
    for (Py_ssize_t i = 0; i < n; i++) {
        h = (h ^ s[i]) * 1099511628211ULL;
    }
    return h;
}

static int
memo_reset(AsciiCounter *self, size_t slots)
{
    Slot *fresh = PyMem_Calloc(slots, sizeof(Slot));
    if (fresh == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    PyMem_Free(self->slots);
    self->slots = fresh;
    self->mask = slots - 1;
    self->used = 0;
    self->arena_used = 0;
    return 0;
}

static int
memo_grow(AsciiCounter *self)
{
    size_t slots = (self->mask + 1) * 2;
    Slot *fresh = PyMem_Calloc(slots, sizeof(Slot));
    if (fresh == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i <= self->mask; i++) {
        Slot *old = &self->slots[i];
        if (old->length == 0) {
            continue;
        }
        size_t j = (size_t)old->hash & (slots - 1);
        int probe = 0;
        while (fresh[j].length != 0 && probe < MAX_PROBES) {
            j = (j + 1) & (slots - 1);
            probe++;
        }
        if (probe < MAX_PROBES) {
            fresh[j] = *old;
        }
        else {
            self->used--; /* too far from home to be found: forgotten */
        }
    }
    PyMem_Free(self->slots);
    self->slots = fresh;
    self->mask = slots - 1;
    return 0;
}

/* The slot holding the piece, or the empty one where it would go; NULL when neither is
 * within MAX_PROBES of its home slot. */
static Slot *
memo_find(AsciiCounter *self, const uint8_t *s, Py_ssize_t n, uint64_t h)
{
    size_t i = (size_t)h & self->mask;
    for (int probe = 0; probe < MAX_PROBES; probe++) {
        Slot *slot = &self->slots[i];
        if (slot->length == 0) {
            return slot;
        }
        if (slot->hash == h && slot->length == (uint32_t)n &&
            memcmp(self->arena + slot->offset, s, (size_t)n) == 0) {
            return slot;
        }
        i = (i + 1) & self->mask;
    }
    return NULL;
}

/* The encoder's count of one pre-token, BPE-encoded and remembered on first sight. */
static Py_ssize_t
count_piece(AsciiCounter *self, const uint8_t *s, Py_ssize_t n)
{
    uint64_t h = 0;
    if (n <= MEMO_PIECE) {
        h = hash_bytes(s, n);
        Slot *slot = memo_find(self, s, n, h);
        if (slot != NULL && slot->length != 0) {
            return slot->count;
        }
    }
    PyObject *piece = PyBytes_FromStringAndSize((const char *)s, n);
    if (piece == NULL) {
        return -1;
    }
    PyObject *tokens = PyObject_CallOneArg(self->encode_piece, piece);
    Py_DECREF(piece);
    if (tokens == NULL) {
        return -1;
    }
    Py_ssize_t count = PyObject_Length(tokens);
    Py_DECREF(tokens);
    if (count < 0 || n > MEMO_PIECE) {
        return count;
    }
    /* The call ran Python code: look again before inserting (the table may have changed). */
    if (self->used >= MEMO_ENTRIES && memo_reset(self, FIRST_SLOTS) < 0) {
        return -1;
    }
    if ((self->used + 1) * 2 > self->mask + 1 && memo_grow(self) < 0) {
        return -1;
    }
    Slot *slot = memo_find(self, s, n, h);
    if (slot == NULL) {
        return count;
    }
    if (slot->length != 0) {
        return slot->count;
    }
    if (self->arena_used + (size_t)n > self->arena_size) {
        size_t size = self->arena_size ? self->arena_size * 2 : 1 << 16;
        while (size < self->arena_used + (size_t)n) {
            size *= 2;
        }
        char *arena = PyMem_Realloc(self->arena, size);
        if (arena == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        self->arena = arena;
        self->arena_size = size;
    }
    memcpy(self->arena + self->arena_used, s, (size_t)n);
    slot->hash = h;
    slot->offset = (uint32_t)self->arena_used;
    slot->length = (uint32_t)n;
    slot->count = count;
    self->arena_used += (size_t)n;
    self->used++;
    return count;
}

/* ---- one text ---- */

typedef struct {
    Py_ssize_t total;
    Py_ssize_t first;      /* first split point, 0 if none */
    Py_ssize_t head;       /* count of the pre-tokens before ``first`` */
    Py_ssize_t last;       /* last split point (== first when there is only one) */
    Py_ssize_t before_last; /* count of the pre-tokens before ``last`` */
} Scan;

static int
scan_text(AsciiCounter *self, const uint8_t *s, Py_ssize_t n, int splits, Scan *out)
{
    Py_ssize_t total = 0, first = 0, head = 0, last = 0, before_last = 0;
    for (Py_ssize_t p = 0; p < n;) {
        if (splits && p > 0 && is_split(s, p)) {
            if (first == 0) {
                first = p;
                head = total;
            }
            last = p;
            before_last = total;
        }
        Py_ssize_t end = piece_end(s, p, n);
        Py_ssize_t count = count_piece(self, s + p, end - p);
        if (count < 0) {
            return -1;
        }
        total += count;
        p = end;
    }
    out->total = total;
    out->first = first;
    out->head = head;
    out->last = last;
    out->before_last = before_last;
    return 0;
}

static const uint8_t *
ascii_data(PyObject *text, Py_ssize_t *n)
{
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "expected str, got %.100s", Py_TYPE(text)->tp_name);
        return NULL;
    }
    if (READY(text) < 0) {
        return NULL;
    }
    if (!PyUnicode_IS_ASCII(text)) {
        PyErr_SetString(PyExc_ValueError, "text is not ASCII");
        return NULL;
    }
    *n = PyUnicode_GET_LENGTH(text);
    return PyUnicode_1BYTE_DATA(text);
}

/* ``prepare_many``'s tuple for one ASCII text (see _pretokens.PreTokenCounter). */
static PyObject *
prepared(PyObject *text, const Scan *scan, Py_ssize_t n)
{
    if (scan->first == 0) {
        return Py_BuildValue("(OnOOsO)", text, scan->total, Py_False, text, "", Py_None);
    }
    Py_ssize_t tail_start = scan->last, tail = scan->total - scan->before_last;
    PyObject *head_text = PyUnicode_Substring(text, 0, scan->first);
    if (head_text == NULL) {
        return NULL;
    }
    PyObject *tail_text = PyUnicode_Substring(text, tail_start, n);
    if (tail_text == NULL) {
        Py_DECREF(head_text);
        return NULL;
    }
    PyObject *middle;
    if (scan->last > scan->first) {
        middle = PyLong_FromSsize_t(scan->total - scan->head - tail);
        if (middle == NULL) {
            Py_DECREF(head_text);
            Py_DECREF(tail_text);
            return NULL;
        }
    }
    else {
        middle = Py_NewRef(Py_None);
    }
    PyObject *result =
        Py_BuildValue("(OnONNN)", text, scan->total, Py_True, head_text, tail_text, middle);
    return result;
}

static PyObject *
AsciiCounter_count(AsciiCounter *self, PyObject *text)
{
    Py_ssize_t n;
    const uint8_t *s = ascii_data(text, &n);
    if (s == NULL) {
        return NULL;
    }
    Py_INCREF(text); /* the memo's calls run Python code: keep the text alive */
    Scan scan;
    int failed = scan_text(self, s, n, 0, &scan);
    Py_DECREF(text);
    return failed ? NULL : PyLong_FromSsize_t(scan.total);
}

/* The pre-tokens themselves: what ``piece_end`` cuts, for tests to compare with the regex. */
static PyObject *
pretokens(PyObject *module, PyObject *text)
{
    Py_ssize_t n;
    const uint8_t *s = ascii_data(text, &n);
    if (s == NULL) {
        return NULL;
    }
    PyObject *result = PyList_New(0);
    if (result == NULL) {
        return NULL;
    }
    for (Py_ssize_t p = 0; p < n;) {
        Py_ssize_t end = piece_end(s, p, n);
        PyObject *piece = PyUnicode_Substring(text, p, end);
        if (piece == NULL || PyList_Append(result, piece) < 0) {
            Py_XDECREF(piece);
            Py_DECREF(result);
            return NULL;
        }
        Py_DECREF(piece);
        p = end;
    }
    return result;
}

static PyObject *
AsciiCounter_prepare_many(AsciiCounter *self, PyObject *texts)
{
    /* A tuple, not the caller's list: the memo's calls run Python code, which could
     * change a list while it is read. */
    PyObject *items = PySequence_Tuple(texts);
    if (items == NULL) {
        return NULL;
    }
    Py_ssize_t size = PyTuple_GET_SIZE(items);
    PyObject *result = PyList_New(size);
    if (result == NULL) {
        Py_DECREF(items);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < size; i++) {
        PyObject *text = PyTuple_GET_ITEM(items, i);
        if (!PyUnicode_Check(text)) {
            PyErr_Format(PyExc_TypeError, "expected str, got %.100s", Py_TYPE(text)->tp_name);
            goto error;
        }
        if (READY(text) < 0) {
            goto error;
        }
        if (!PyUnicode_IS_ASCII(text)) {
            PyList_SET_ITEM(result, i, Py_NewRef(Py_None));
            continue;
        }
        Py_ssize_t n = PyUnicode_GET_LENGTH(text);
        Scan scan;
        PyObject *part = NULL;
        if (scan_text(self, PyUnicode_1BYTE_DATA(text), n, 1, &scan) == 0) {
            part = prepared(text, &scan, n);
        }
        if (part == NULL) {
            goto error;
        }
        PyList_SET_ITEM(result, i, part);
    }
    Py_DECREF(items);
    return result;
error:
    Py_DECREF(items);
    Py_DECREF(result);
    return NULL;
}

static PyObject *
AsciiCounter_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"encode_piece", NULL};
    PyObject *encode_piece;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:AsciiCounter", keywords, &encode_piece)) {
        return NULL;
    }
    if (!PyCallable_Check(encode_piece)) {
        PyErr_SetString(PyExc_TypeError, "encode_piece must be callable");
        return NULL;
    }
    AsciiCounter *self = (AsciiCounter *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->encode_piece = Py_NewRef(encode_piece);
    if (memo_reset(self, FIRST_SLOTS) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static int
AsciiCounter_traverse(AsciiCounter *self, visitproc visit, void *arg)
{
    Py_VISIT(self->encode_piece);
    return 0;
}

static int
AsciiCounter_clear(AsciiCounter *self)
{
    Py_CLEAR(self->encode_piece);
    return 0;
}

static void
AsciiCounter_dealloc(AsciiCounter *self)
{
    PyObject_GC_UnTrack(self);
    AsciiCounter_clear(self);
    PyMem_Free(self->slots);
    PyMem_Free(self->arena);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef AsciiCounter_methods[] = {
    {"count", (PyCFunction)AsciiCounter_count, METH_O,
     "count(text) -> int: the encoder's token count of ASCII ``text``."},
    {"prepare_many", (PyCFunction)AsciiCounter_prepare_many, METH_O,
     "prepare_many(texts) -> list: PreTokenCounter.prepare_many's parts, None for non-ASCII."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject AsciiCounterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "fastrag.tokenization._cl100k_ascii.AsciiCounter",
    .tp_basicsize = sizeof(AsciiCounter),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "AsciiCounter(encode_piece): cl100k_base counts of ASCII text by pre-tokens.",
    .tp_new = AsciiCounter_new,
    .tp_dealloc = (destructor)AsciiCounter_dealloc,
    .tp_traverse = (traverseproc)AsciiCounter_traverse,
    .tp_clear = (inquiry)AsciiCounter_clear,
    .tp_methods = AsciiCounter_methods,
};

static PyMethodDef module_methods[] = {
    {"pretokens", (PyCFunction)pretokens, METH_O,
     "pretokens(text) -> list[str]: cl100k_base's pre-tokens of ASCII ``text``."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "fastrag.tokenization._cl100k_ascii",
    .m_doc = "cl100k_base token counts of ASCII text by pre-tokens (see the C source).",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC
PyInit__cl100k_ascii(void)
{
    fill_classes();
    if (PyType_Ready(&AsciiCounterType) < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) {
        return NULL;
    }
    if (PyModule_AddObjectRef(m, "AsciiCounter", (PyObject *)&AsciiCounterType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
