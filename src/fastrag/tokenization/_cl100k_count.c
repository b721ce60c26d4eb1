/*
 * fastrag.tokenization._cl100k_count: cl100k_base token counts by pre-tokens, in C.
 *
 * Why this is written by hand (and in C): counting was the largest single cost of packing
 * (a fifth of a Markdown split). ``_pretokens.PreTokenCounter`` counts with Python's
 * ``re.findall`` and a dict of per-pre-token counts, and most of that time goes to making a
 * Python string per pre-token, hashing it and freeing it again. No library counts cl100k
 * tokens without that and also gives the split points and head/tail counts
 * ``prepare_many`` needs: tiktoken's own encoder (one backtracking-regex pass) is slower
 * than the Python path, and bpe-openai returns only a count. Here the pattern is a small
 * state machine over the text's code units, and the memo is a hash table keyed by each
 * pre-token's UTF-8 bytes.
 *
 * Which text: the ``SAFE`` text of ``_pretokens`` (ASCII, Latin, Greek, Cyrillic, general
 * punctuation, arrows, box drawing), whose character classes Python hands over as a table
 * (``classes``, one byte of bits per code point, built from ``_pretokens``' own class
 * definitions and ``str`` methods): this file encodes no Unicode data of its own. Text
 * with any other character is left to the caller (``count`` and ``prepare_many`` answer
 * None), which runs tiktoken's encoder.
 *
 * Exactness. On such text cl100k's pattern
 *
 *     '(?i:[sdmt]|ll|ve|re) | [^\r\n\p{L}\p{N}]?+\p{L}++ | \p{N}{1,3}+
 *     | ?[^\s\p{L}\p{N}]++[\r\n]*+ | \s++$ | \s*[\r\n] | \s+(?!\S) | \s
 *
 * is ``_pretokens.CL100K_SAFE``, and ``piece_end`` below decides, at each position, which
 * alternative matches first and where it ends, as the leftmost-first regex does. Each
 * count is the encoder's own: a pre-token's BPE (``encode_piece``, tiktoken's
 * ``encode_single_piece``) runs on the first occurrence of each distinct pre-token and is
 * remembered. Split points are ``TiktokenTokenizer.first_split_point`` and
 * ``last_split_point``'s, including where those differ (see ``split_rule``). The module is
 * an accelerator only: ``_pretokens`` keeps the regex path (used without a C compiler and
 * under FASTRAG_PURE_PYTHON=1), and tests compare the two on real documents, on every
 * short ASCII text, on every SAFE character in context and on generated text.
 *
 * Hostile input: every read is bounds-checked against the text's length and the class
 * table's; a pre-token longer than MEMO_PIECE characters is counted but not remembered,
 * and the memo starts over after MEMO_ENTRIES entries, so memory stays bounded (a few MB)
 * whatever the text. The hash is not keyed, so text could be made of pre-tokens that
 * collide: a piece is looked for, and stored, only within MAX_PROBES slots of its home,
 * so collisions cost at most that many comparisons and a BPE call each (a piece not found
 * is counted, never miscounted).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MEMO_PIECE 64          /* longest pre-token remembered (as _pretokens._PIECE_LIMIT) */
#define MEMO_ENTRIES (1 << 16) /* entries after which the memo starts over (_MEMO_ENTRIES) */
#define FIRST_SLOTS (1 << 10)
#define MAX_PROBES 32          /* slots looked at from a piece's home slot, at most */

/* The bits of the class table (``_pretokens.class_table`` builds it). */
enum {
    LETTER = 1,     /* \p{L} of the pattern */
    DIGIT = 2,      /* \p{N} */
    SPACE = 4,      /* \s (Unicode White_Space) */
    NEWLINE = 8,    /* \r or \n */
    PY_ISSPACE = 16, /* str.isspace (split points) */
    PY_ALPHA = 32,   /* str.isalpha (split points) */
    CUT_AFTER = 64,  /* [\W\d_]: may follow a letter at a found split point */
    SAFE = 128,      /* handled here */
};

/* Inlined where ``kind`` is a constant, so that each string kind gets its own loop. */
#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* Strings are always "ready" from 3.12 on, where the macro is deprecated. */
#if PY_VERSION_HEX >= 0x030C0000
#define READY(text) 0
#else
#define READY(text) PyUnicode_READY(text)
#endif

/* Code unit ``i`` of a 1- or 2-byte string: ``kind`` is a constant wherever this is
 * inlined (``scan_text`` instantiates each), so the test folds away. */
#define UNIT(data, kind, i) \
    ((kind) == PyUnicode_1BYTE_KIND ? (Py_UCS4)((const Py_UCS1 *)(data))[i] \
                                    : (Py_UCS4)((const Py_UCS2 *)(data))[i])

#define IS(cls, c, kind) ((cls)[(c)] & (kind))
#define IS_OTHER(cls, c) (!IS((cls), (c), LETTER | DIGIT | SPACE))

static inline int
folded(const uint8_t *cls, Py_UCS4 c)
{
    return (c < 128 && IS(cls, c, LETTER)) ? (int)(c | 0x20) : (int)c;
}

/* End of the pre-token that starts at ``p`` (p < n): the alternatives in the pattern's
 * order; each returns as soon as it matches, as leftmost-first alternation does. Every
 * code unit of the text has an entry in ``cls`` (the caller checked). */
static ALWAYS_INLINE Py_ssize_t
piece_end(const uint8_t *cls, const void *s, int kind, Py_ssize_t p, Py_ssize_t n)
{
    Py_UCS4 c = UNIT(s, kind, p);
    Py_ssize_t q;

    /* '(?:[sdmtSDMT\u017f]|[lL][lL]|[vV][eE]|[rR][eE]) */
    if (c == '\'' && p + 1 < n) {
        int a = folded(cls, UNIT(s, kind, p + 1));
        if (a == 's' || a == 'd' || a == 'm' || a == 't' || a == 0x017f) {
            return p + 2;
        }
        if (p + 2 < n) {
            int b = folded(cls, UNIT(s, kind, p + 2));
            if ((a == 'l' && b == 'l') || (a == 'v' && b == 'e') || (a == 'r' && b == 'e')) {
                return p + 3;
            }
        }
    }
    /* [^\r\n\p{L}\p{N}]?+\p{L}++ : the optional character is possessive, so a character of
     * its class must be taken, and a letter must follow it. */
    if (IS(cls, c, LETTER)) {
        for (q = p + 1; q < n && IS(cls, UNIT(s, kind, q), LETTER); q++) {
        }
        return q;
    }
    if (!IS(cls, c, NEWLINE | DIGIT) && p + 1 < n && IS(cls, UNIT(s, kind, p + 1), LETTER)) {
        for (q = p + 2; q < n && IS(cls, UNIT(s, kind, q), LETTER); q++) {
        }
        return q;
    }
    /* \p{N}{1,3}+ */
    if (IS(cls, c, DIGIT)) {
        for (q = p + 1; q < n && q < p + 3 && IS(cls, UNIT(s, kind, q), DIGIT); q++) {
        }
        return q;
    }
    /* " ?[^\s\p{L}\p{N}]++[\r\n]*+" : the space is optional (not possessive), so it is taken
     * only when a character of the class follows it. */
    q = (c == ' ' && p + 1 < n && IS_OTHER(cls, UNIT(s, kind, p + 1))) ? p + 1 : p;
    if (IS_OTHER(cls, UNIT(s, kind, q))) {
        for (q++; q < n && IS_OTHER(cls, UNIT(s, kind, q)); q++) {
        }
        for (; q < n && IS(cls, UNIT(s, kind, q), NEWLINE); q++) {
        }
        return q;
    }
    /* Only white space is left (every other character matched above). */
    Py_ssize_t end;
    for (end = p + 1; end < n && IS(cls, UNIT(s, kind, end), SPACE); end++) {
    }
    if (end == n) {
        return n; /* \s++$ */
    }
    for (q = end - 1; q >= p; q--) {
        if (IS(cls, UNIT(s, kind, q), NEWLINE)) {
            return q + 1; /* \s*[\r\n] : up to the run's last newline */
        }
    }
    if (end - p >= 2) {
        return end - 1; /* \s+(?!\S) : all but the last, which precedes non-space */
    }
    return p + 1; /* \s */
}

/* Split points between ``before`` and ``after`` (``tiktoken._cl100k_cut``): a letter then a
 * non-letter, or a newline then a non-space. ``_CutRule.first`` (and ``last`` before its
 * last BACKWARD_SCAN characters) only looks where its candidates regex lets it, which
 * skips a letter followed by a non-decimal numeric such as "²" (CUT_AFTER unset); ``last``
 * within the last BACKWARD_SCAN characters does not. Both are split points; the two
 * kinds are kept apart so that the parts equal ``prepare_parts``' exactly. */
enum { NO_SPLIT = 0, SPLIT_FOUND = 1, SPLIT_NEAR_END_ONLY = 2 };

static inline int
split_rule(const uint8_t *cls, Py_UCS4 before, Py_UCS4 after)
{
    if (IS(cls, before, PY_ALPHA)) {
        if (IS(cls, after, PY_ALPHA)) {
            return NO_SPLIT;
        }
        return IS(cls, after, CUT_AFTER) ? SPLIT_FOUND : SPLIT_NEAR_END_ONLY;
    }
    if (IS(cls, before, NEWLINE) && !IS(cls, after, PY_ISSPACE)) {
        return SPLIT_FOUND;
    }
    return NO_SPLIT;
}

/* ---- the memo: pre-token bytes -> count, open addressing ---- */

typedef struct {
    uint32_t hash;   /* the low bits of the piece's hash: its home slot is in them */
    uint32_t offset; /* into the arena */
    uint32_t length; /* 0: empty slot */
    uint32_t count;  /* a remembered piece has at most MEMO_PIECE * 3 bytes: a few tokens */
} Slot;

typedef struct {
    PyObject_HEAD
    PyObject *encode_piece;
    PyObject *classes_object; /* bytes: the class bits of each code point below its size */
    const uint8_t *classes;
    Py_ssize_t ncl;
    Py_ssize_t backward_scan;
    Slot *slots;
    size_t mask; /* slots - 1 (a power of two) */
    size_t used;
    char *arena;
    size_t arena_used;
    size_t arena_size;
} Counter;

static Py_ssize_t
encode_count(Counter *self, PyObject *piece)
{
    PyObject *tokens = PyObject_CallOneArg(self->encode_piece, piece);
    if (tokens == NULL) {
        return -1;
    }
    Py_ssize_t count = PyObject_Length(tokens);
    Py_DECREF(tokens);
    return count;
}

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
memo_reset(Counter *self, size_t slots)
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
memo_grow(Counter *self)
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
memo_find(Counter *self, const uint8_t *s, Py_ssize_t n, uint64_t h)
{
    size_t i = (size_t)h & self->mask;
    for (int probe = 0; probe < MAX_PROBES; probe++) {
        Slot *slot = &self->slots[i];
        if (slot->length == 0) {
            return slot;
        }
        if (slot->hash == (uint32_t)h && slot->length == (uint32_t)n &&
            memcmp(self->arena + slot->offset, s, (size_t)n) == 0) {
            return slot;
        }
        i = (i + 1) & self->mask;
    }
    return NULL;
}

/* The encoder's count of one pre-token (its UTF-8 bytes), BPE-encoded on first sight and
 * remembered if ``remember`` (at most MEMO_PIECE characters). */
static Py_ssize_t
count_piece(Counter *self, const uint8_t *s, Py_ssize_t n, int remember)
{
    uint64_t h = 0;
    if (remember) {
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
    Py_ssize_t count = encode_count(self, piece);
    Py_DECREF(piece);
    if (count < 0 || !remember) {
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
    slot->hash = (uint32_t)h;
    slot->offset = (uint32_t)self->arena_used;
    slot->length = (uint32_t)n;
    slot->count = (uint32_t)count;
    self->arena_used += (size_t)n;
    self->used++;
    return count;
}

/* ---- one text ---- */

typedef struct {
    Py_ssize_t total;
    Py_ssize_t first;       /* first split point (FOUND), 0 if none */
    Py_ssize_t head;        /* count of the pre-tokens before ``first`` */
    Py_ssize_t last;        /* last split point, as ``last_split_point`` finds it */
    Py_ssize_t before_last; /* count of the pre-tokens before ``last`` */
} Scan;

enum { SCANNED = 0, NOT_SAFE = 1 };

/* UTF-8 bytes of code units [p, end) of SAFE text (no surrogates, all below U+10000). */
static ALWAYS_INLINE Py_ssize_t
utf8(const void *s, int kind, Py_ssize_t p, Py_ssize_t end, uint8_t *out)
{
    Py_ssize_t size = 0;
    for (Py_ssize_t i = p; i < end; i++) {
        Py_UCS4 c = UNIT(s, kind, i);
        if (c < 0x80) {
            out[size++] = (uint8_t)c;
        }
        else if (c < 0x800) {
            out[size++] = (uint8_t)(0xC0 | (c >> 6));
            out[size++] = (uint8_t)(0x80 | (c & 0x3F));
        }
        else {
            out[size++] = (uint8_t)(0xE0 | (c >> 12));
            out[size++] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
            out[size++] = (uint8_t)(0x80 | (c & 0x3F));
        }
    }
    return size;
}

/* The count of code units [p, end) of non-ASCII text. */
static ALWAYS_INLINE Py_ssize_t
count_units(Counter *self, const void *s, int kind, Py_ssize_t p, Py_ssize_t end)
{
    uint8_t small[MEMO_PIECE * 3];
    if (end - p <= MEMO_PIECE) {
        return count_piece(self, small, utf8(s, kind, p, end, small), 1);
    }
    uint8_t *large = PyMem_Malloc((size_t)(end - p) * 3);
    if (large == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t count = count_piece(self, large, utf8(s, kind, p, end, large), 0);
    PyMem_Free(large);
    return count;
}

/* Counts (and, if ``splits``, split points) of a text of one kind; ``ascii`` when every
 * code unit is ASCII, so that the text is its own UTF-8. */
static ALWAYS_INLINE int
scan_kind(Counter *self, const void *s, int kind, int ascii, Py_ssize_t n, int splits,
          Scan *out)
{
    const uint8_t *cls = self->classes;
    Py_ssize_t stop = n > self->backward_scan ? n - self->backward_scan : 0;
    Py_ssize_t total = 0, first = 0, head = 0;
    Py_ssize_t any = 0, before_any = 0;  /* the last split point of either kind */
    Py_ssize_t far = 0, before_far = 0;  /* the last FOUND one at or before ``stop`` */
    for (Py_ssize_t p = 0; p < n;) {
        if (splits && p > 0) {
            int rule = split_rule(cls, UNIT(s, kind, p - 1), UNIT(s, kind, p));
            if (rule != NO_SPLIT) {
                if (rule == SPLIT_FOUND) {
                    if (first == 0) {
                        first = p;
                        head = total;
                    }
                    if (p <= stop) {
                        far = p;
                        before_far = total;
                    }
                }
                any = p;
                before_any = total;
            }
        }
        Py_ssize_t end = piece_end(cls, s, kind, p, n);
        Py_ssize_t count =
            ascii ? count_piece(self, (const uint8_t *)s + p, end - p, end - p <= MEMO_PIECE)
                  : count_units(self, s, kind, p, end);
        if (count < 0) {
            return -1;
        }
        total += count;
        p = end;
    }
    out->total = total;
    out->first = first;
    out->head = head;
    /* ``last_split_point``: the last split of either kind after ``stop``, else the last
     * found one (never before ``first``: a found ``first`` is one of the two). */
    out->last = any > stop ? any : far;
    out->before_last = any > stop ? before_any : before_far;
    return SCANNED;
}

static int
all_safe(Counter *self, const void *s, int kind, Py_ssize_t n)
{
    if (kind != PyUnicode_1BYTE_KIND && kind != PyUnicode_2BYTE_KIND) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = UNIT(s, kind, i);
        if ((Py_ssize_t)c >= self->ncl || !IS(self->classes, c, SAFE)) {
            return 0;
        }
    }
    return 1;
}

/* SCANNED, NOT_SAFE (nothing counted: the caller encodes the text) or -1 on error. */
static int
scan_text(Counter *self, PyObject *text, int splits, Scan *out)
{
    if (READY(text) < 0) {
        return -1;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    const void *s = PyUnicode_DATA(text);
    int kind = PyUnicode_KIND(text);
    if (PyUnicode_IS_ASCII(text)) {
        return scan_kind(self, s, PyUnicode_1BYTE_KIND, 1, n, splits, out);
    }
    if (!all_safe(self, s, kind, n)) {
        return NOT_SAFE;
    }
    if (kind == PyUnicode_1BYTE_KIND) {
        return scan_kind(self, s, PyUnicode_1BYTE_KIND, 0, n, splits, out);
    }
    return scan_kind(self, s, PyUnicode_2BYTE_KIND, 0, n, splits, out);
}

static int
check_str(PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "expected str, got %.100s", Py_TYPE(text)->tp_name);
        return -1;
    }
    return 0;
}

/* ``prepare_many``'s tuple for one scanned text (see _pretokens.PreTokenCounter). */
static PyObject *
prepared(PyObject *text, const Scan *scan)
{
    if (scan->first == 0) {
        return Py_BuildValue("(OnOOsO)", text, scan->total, Py_False, text, "", Py_None);
    }
    Py_ssize_t tail = scan->total - scan->before_last;
    PyObject *head_text = PyUnicode_Substring(text, 0, scan->first);
    if (head_text == NULL) {
        return NULL;
    }
    PyObject *tail_text = PyUnicode_Substring(text, scan->last, PyUnicode_GET_LENGTH(text));
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
    return Py_BuildValue("(OnONNN)", text, scan->total, Py_True, head_text, tail_text, middle);
}

static PyObject *
Counter_count(Counter *self, PyObject *text)
{
    if (check_str(text) < 0) {
        return NULL;
    }
    Scan scan;
    Py_INCREF(text); /* the memo's calls run Python code: keep the text alive */
    int done = scan_text(self, text, 0, &scan);
    Py_DECREF(text);
    if (done < 0) {
        return NULL;
    }
    if (done == NOT_SAFE) {
        Py_RETURN_NONE;
    }
    return PyLong_FromSsize_t(scan.total);
}

static PyObject *
Counter_prepare_many(Counter *self, PyObject *texts)
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
        if (check_str(text) < 0) {
            goto error;
        }
        Scan scan;
        int done = scan_text(self, text, 1, &scan);
        if (done < 0) {
            goto error;
        }
        PyObject *part = done == NOT_SAFE ? Py_NewRef(Py_None) : prepared(text, &scan);
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

/* The pre-tokens themselves: what ``piece_end`` cuts, for tests to compare with the regex. */
static PyObject *
Counter_pretokens(Counter *self, PyObject *text)
{
    if (check_str(text) < 0 || READY(text) < 0) {
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    const void *s = PyUnicode_DATA(text);
    int kind = PyUnicode_KIND(text);
    if (!PyUnicode_IS_ASCII(text) && !all_safe(self, s, kind, n)) {
        Py_RETURN_NONE;
    }
    PyObject *result = PyList_New(0);
    if (result == NULL) {
        return NULL;
    }
    for (Py_ssize_t p = 0; p < n;) {
        Py_ssize_t end = kind == PyUnicode_1BYTE_KIND
                             ? piece_end(self->classes, s, PyUnicode_1BYTE_KIND, p, n)
                             : piece_end(self->classes, s, PyUnicode_2BYTE_KIND, p, n);
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
Counter_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"encode_piece", "classes", "backward_scan", NULL};
    PyObject *encode_piece, *classes;
    Py_ssize_t backward_scan;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OSn:Cl100kCounter", keywords,
                                     &encode_piece, &classes, &backward_scan)) {
        return NULL;
    }
    if (!PyCallable_Check(encode_piece)) {
        PyErr_SetString(PyExc_TypeError, "encode_piece must be callable");
        return NULL;
    }
    if (PyBytes_GET_SIZE(classes) < 256 || PyBytes_GET_SIZE(classes) > 0x10000) {
        PyErr_SetString(PyExc_ValueError, "classes must hold 256 to 65536 entries");
        return NULL;
    }
    if (backward_scan < 0) {
        PyErr_SetString(PyExc_ValueError, "backward_scan must not be negative");
        return NULL;
    }
    Counter *self = (Counter *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->encode_piece = Py_NewRef(encode_piece);
    self->classes_object = Py_NewRef(classes);
    self->classes = (const uint8_t *)PyBytes_AS_STRING(classes);
    self->ncl = PyBytes_GET_SIZE(classes);
    self->backward_scan = backward_scan;
    if (memo_reset(self, FIRST_SLOTS) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static int
Counter_traverse(Counter *self, visitproc visit, void *arg)
{
    Py_VISIT(self->encode_piece);
    return 0;
}

static int
Counter_clear(Counter *self)
{
    Py_CLEAR(self->encode_piece);
    return 0;
}

static void
Counter_dealloc(Counter *self)
{
    PyObject_GC_UnTrack(self);
    Counter_clear(self);
    Py_XDECREF(self->classes_object);
    PyMem_Free(self->slots);
    PyMem_Free(self->arena);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Counter_methods[] = {
    {"count", (PyCFunction)Counter_count, METH_O,
     "count(text) -> int | None: the encoder's count of SAFE ``text``; None for other text."},
    {"prepare_many", (PyCFunction)Counter_prepare_many, METH_O,
     "prepare_many(texts) -> list: prepare_parts' parts of each SAFE text, None for others."},
    {"pretokens", (PyCFunction)Counter_pretokens, METH_O,
     "pretokens(text) -> list[str] | None: cl100k_base's pre-tokens of SAFE ``text``."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CounterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "fastrag.tokenization._cl100k_count.Cl100kCounter",
    .tp_basicsize = sizeof(Counter),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Cl100kCounter(encode_piece, classes, backward_scan): cl100k_base counts of "
              "SAFE text by pre-tokens.",
    .tp_new = Counter_new,
    .tp_dealloc = (destructor)Counter_dealloc,
    .tp_traverse = (traverseproc)Counter_traverse,
    .tp_clear = (inquiry)Counter_clear,
    .tp_methods = Counter_methods,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "fastrag.tokenization._cl100k_count",
    .m_doc = "cl100k_base token counts by pre-tokens (see the C source).",
    .m_size = -1,
};

PyMODINIT_FUNC
PyInit__cl100k_count(void)
{
    if (PyType_Ready(&CounterType) < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) {
        return NULL;
    }
    if (PyModule_AddObjectRef(m, "Cl100kCounter", (PyObject *)&CounterType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
