/*
 * pickle_read: the pickle virtual machine for plain data (pickle.h), without its code-running
 * half. Each opcode is the one Python's pickle.py `load_*` function of the same name defines;
 * the stack holds node ids, MARK pushes the stack height.
 *
 * Containers are filled batch by batch (the pickler writes APPENDS/SETITEMS every 1000 items,
 * and nested containers are completed between two batches of their parent), so a container's
 * items are a chain of chunks while reading and one contiguous run afterwards (flatten()).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "pickle.h"
#include "pickle_doc.h"

typedef struct chunk {
    uint32_t start, count, next;
} chunk;

/* The reader's state: the input and the machine's stacks. */
typedef struct vm {
    pk_doc *d;
    const char *name;
    gzFile gz;
    const uint8_t *buf;
    uint8_t *own; /* gz: the block buffer */
    size_t pos, len, cap;
    uint64_t base; /* stream offset of buf[0] */
    uint64_t op_at; /* offset of the opcode being run */
    pk_ref *stack;
    size_t sp, capst;
    size_t *marks;
    size_t nmarks, capm;
    pk_ref *memo;
    size_t nmemo, capmemo;
    chunk *ch;
    size_t nch, capch;
    pk_ref small[259]; /* shared nodes: ints 0..255, None, False, True (immutable, so one
                        * node each serves every occurrence) */
    gms_error *err;
} vm;

#define GROW(arr, cnt, capv, need)                                                            \
    ((need) <= (capv) ? 0 : grow_to((void **)&(arr), &(capv), (need), sizeof *(arr)))

static int grow_to(void **arr, size_t *cap, size_t need, size_t sz)
{
    size_t c = *cap ? *cap : 64;
    while (c < need) {
        if (c > SIZE_MAX / 2 / sz)
            return -1;
        c *= 2;
    }
    void *p = realloc(*arr, c * sz);
    if (!p)
        return -1;
    *arr = p;
    *cap = c;
    return 0;
}

/* ---- opcode names (for errors) ---------------------------------------------------------- */

static const char *op_name(int op)
{
    switch (op) {
    case 'c': return "GLOBAL";
    case 0x93: return "STACK_GLOBAL";
    case 'R': return "REDUCE";
    case 'b': return "BUILD";
    case 'i': return "INST";
    case 'o': return "OBJ";
    case 0x81: return "NEWOBJ";
    case 0x92: return "NEWOBJ_EX";
    case 0x82: return "EXT1";
    case 0x83: return "EXT2";
    case 0x84: return "EXT4";
    case 'P': return "PERSID";
    case 'Q': return "BINPERSID";
    case 'I': return "INT";
    case 'L': return "LONG";
    case 'F': return "FLOAT";
    case 'S': return "STRING";
    case 'T': return "BINSTRING";
    case 'U': return "SHORT_BINSTRING";
    case 'V': return "UNICODE";
    case 'g': return "GET";
    case 'p': return "PUT";
    case '2': return "DUP";
    case 0x8f: return "EMPTY_SET";
    case 0x90: return "ADDITEMS";
    case 0x91: return "FROZENSET";
    case 0x97: return "NEXT_BUFFER";
    case 0x98: return "READONLY_BUFFER";
    default: return NULL;
    }
}

static int fail(vm *m, const char *what)
{
    return gms_error_set(m->err, GMS_EFORMAT, "%s: byte %llu: %s", m->name,
                         (unsigned long long)m->op_at, what);
}

static int fail_oom(vm *m)
{
    return gms_error_set(m->err, GMS_ENOMEM, "%s: out of memory reading the pickle (byte %llu)",
                         m->name, (unsigned long long)m->op_at);
}

/* ---- input ------------------------------------------------------------------------------ */

/* Makes n bytes available at buf + pos; 0, or -1 at the end of the input. n <= the block. */
static int fill(vm *m, size_t n)
{
    if (m->len - m->pos >= n)
        return 0;
    if (!m->gz || n > m->cap)
        return -1;
    size_t keep = m->len - m->pos;
    memmove(m->own, m->own + m->pos, keep);
    m->base += m->pos;
    m->pos = 0;
    m->len = keep;
    while (m->len < n) {
        int got = gzread(m->gz, m->own + m->len, (unsigned)(m->cap - m->len));
        if (got <= 0)
            return -1;
        m->len += (size_t)got;
    }
    m->buf = m->own;
    return 0;
}

static int truncated(vm *m)
{
    int zerr = Z_OK;
    const char *msg = m->gz ? gzerror(m->gz, &zerr) : "";
    if (zerr != Z_OK && zerr != Z_STREAM_END)
        return gms_error_set(m->err, GMS_EFORMAT,
                             "%s: cannot decompress (%s): a truncated or damaged gzip file",
                             m->name, msg);
    return fail(m, "the pickle ends before its STOP opcode (a truncated file?)");
}

/* Copies n bytes of input to dst (any n). */
static int take_slow(vm *m, void *dst, size_t n)
{
    uint8_t *o = dst;
    while (n) {
        if (m->pos == m->len && fill(m, 1))
            return truncated(m);
        size_t k = m->len - m->pos < n ? m->len - m->pos : n;
        memcpy(o, m->buf + m->pos, k);
        m->pos += k;
        o += k;
        n -= k;
    }
    return 0;
}

static inline int take(vm *m, void *dst, size_t n)
{
    if (m->len - m->pos >= n) { /* the common case: the bytes are in the block */
        memcpy(dst, m->buf + m->pos, n);
        m->pos += n;
        return 0;
    }
    return take_slow(m, dst, n);
}

static uint64_t le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* ---- nodes ------------------------------------------------------------------------------ */

static pk_ref new_node(vm *m, int type, uint32_t len, uint64_t v)
{
    pk_doc *d = m->d;
    if (d->nn >= UINT32_MAX - 1 || GROW(d->n, d->nn, d->capn, d->nn + 1))
        return PK_NULL;
    d->n[d->nn] = (pk_node){.type = (uint8_t)type, .len = len, .v = v};
    return (pk_ref)d->nn++;
}

/* The shared node of a small immutable value (slot: 0..255 ints, 256 None, 257 False,
 * 258 True). */
static pk_ref shared(vm *m, int slot)
{
    if (m->small[slot] == 0) {
        int type = slot < 256 ? PK_INT : slot == 256 ? PK_NONE : PK_BOOL;
        pk_ref r = new_node(m, type, 0, slot < 256 ? (uint64_t)slot : (uint64_t)(slot == 258));
        if (r == PK_NULL)
            return PK_NULL;
        m->small[slot] = r + 1;
    }
    return m->small[slot] - 1;
}

static int push(vm *m, pk_ref r)
{
    if (r == PK_NULL)
        return fail_oom(m);
    if (GROW(m->stack, m->sp, m->capst, m->sp + 1))
        return fail_oom(m);
    m->stack[m->sp++] = r;
    return 0;
}

/* A string or bytes node of n bytes read from the input. */
static int push_bytes(vm *m, int type, uint64_t n)
{
    pk_doc *d = m->d;
    if (n >= UINT32_MAX)
        return fail(m, "a string of 4 GiB or more");
    if (!m->gz && n > m->len - m->pos) /* a length beyond the buffer: never allocate it */
        return truncated(m);
    size_t off = d->ns, done = 0;
    /* grows with the bytes that really arrive, so a bogus length in a stream costs nothing */
    while (done < n) {
        size_t k = n - done < (1u << 20) ? (size_t)(n - done) : (1u << 20);
        if (GROW(d->s, d->ns, d->caps, off + done + k + 1))
            return fail_oom(m);
        if (take(m, d->s + off + done, k))
            return -1;
        done += k;
    }
    if (GROW(d->s, d->ns, d->caps, off + n + 1))
        return fail_oom(m);
    d->s[off + n] = 0;
    d->ns += n + 1;
    return push(m, new_node(m, type, (uint32_t)n, off));
}

/* LONG1/LONG4: n bytes of two's complement, little endian. */
static int push_long(vm *m, uint64_t n)
{
    if (n > 8) { /* keep every byte: PK_BIGINT (most fit in 8 once sign bytes are gone) */
        size_t at = m->d->ns;
        if (push_bytes(m, PK_BIGINT, n))
            return -1;
        const uint8_t *b = (const uint8_t *)m->d->s + at;
        size_t k = (size_t)n;
        while (k > 8 && (b[k - 1] == 0 || b[k - 1] == 0xff) &&
               ((b[k - 2] & 0x80) == (b[k - 1] & 0x80)))
            k--;
        if (k > 8)
            return 0;
        n = k; /* fits: fall through to an int, dropping the bytes pk_node */
        m->sp--;
        m->d->nn--;
        m->d->ns = at;
        uint64_t v = le(b, (int)n);
        if (n && n < 8 && (b[n - 1] & 0x80))
            v |= ~UINT64_C(0) << (8 * n);
        return push(m, new_node(m, PK_INT, 0, v));
    }
    uint8_t b[8];
    if (take(m, b, (size_t)n))
        return -1;
    uint64_t v = le(b, (int)n);
    if (n && n < 8 && (b[n - 1] & 0x80))
        v |= ~UINT64_C(0) << (8 * n);
    return push(m, new_node(m, PK_INT, 0, v));
}

static int is_container(const pk_node *x, int type)
{
    return x->type == type;
}

/* Appends stack[from..sp) to container c as one chunk and pops them. */
static int extend(vm *m, pk_ref c, size_t from)
{
    pk_doc *d = m->d;
    size_t k = m->sp - from;
    if (k == 0)
        return 0;
    if (d->ni + k >= UINT32_MAX || (uint64_t)d->n[c].len + k >= UINT32_MAX)
        return fail(m, "more than 4 billion items");
    if (GROW(d->items, d->ni, d->capi, d->ni + k) || GROW(m->ch, m->nch, m->capch, m->nch + 1))
        return fail_oom(m);
    memcpy(d->items + d->ni, m->stack + from, k * sizeof *d->items);
    pk_node *x = &d->n[c];
    uint32_t tail = (uint32_t)(x->v & 0xffffffffu);
    if (x->len && m->ch[tail].start + m->ch[tail].count == d->ni) {
        m->ch[tail].count += (uint32_t)k; /* continues the last chunk */
    } else {
        m->ch[m->nch] = (chunk){(uint32_t)d->ni, (uint32_t)k, UINT32_MAX};
        uint32_t id = (uint32_t)m->nch++;
        if (x->len)
            m->ch[tail].next = id;
        uint32_t head = x->len ? (uint32_t)(x->v >> 32) : id;
        x->v = (uint64_t)head << 32 | id;
    }
    d->ni += k;
    x->len += (uint32_t)(x->type == PK_DICT ? k / 2 : k);
    m->sp = from;
    return 0;
}

/* Objects above the last MARK: Python's unpickler moves the stack aside at a MARK
 * (metastack), so no opcode reaches below it. */
static size_t avail(const vm *m)
{
    return m->sp - (m->nmarks ? m->marks[m->nmarks - 1] : 0);
}

/* The stack height at the last MARK, popping it. */
static int pop_mark(vm *m, size_t *at)
{
    if (!m->nmarks)
        return fail(m, "an opcode needs a MARK and there is none");
    *at = m->marks[--m->nmarks];
    return 0;
}

static int memo_put(vm *m, uint64_t i)
{
    if (!avail(m))
        return fail(m, "memo store with an empty stack");
    if (i > m->d->nn) /* the pickler numbers memo entries 0, 1, 2, ... */
        return fail(m, "memo index beyond any object read so far");
    if (GROW(m->memo, m->nmemo, m->capmemo, (size_t)i + 1))
        return fail_oom(m);
    while (m->nmemo <= i)
        m->memo[m->nmemo++] = PK_NULL;
    m->memo[i] = m->stack[m->sp - 1];
    return 0;
}

static int memo_get(vm *m, uint64_t i)
{
    if (i >= m->nmemo || m->memo[i] == PK_NULL)
        return fail(m, "memo fetch of an entry never stored");
    return push(m, m->memo[i]);
}

/* A container node holding stack[from..sp). */
static int build(vm *m, int type, size_t from)
{
    if (type == PK_DICT && (m->sp - from) % 2)
        return fail(m, "a dict with a key and no value");
    pk_ref c = new_node(m, type, 0, 0);
    if (c == PK_NULL)
        return fail_oom(m);
    if (extend(m, c, from))
        return -1;
    return push(m, c);
}

/* ---- the machine ------------------------------------------------------------------------ */

static int run(vm *m)
{
    for (;;) {
        m->op_at = m->base + m->pos;
        if (m->pos == m->len && fill(m, 1))
            return truncated(m);
        int op = m->buf[m->pos++];
        uint8_t a[8];
        size_t from = 0;
        switch (op) {
        case 0x80: /* PROTO */
            if (take(m, a, 1))
                return -1;
            if (a[0] < 2 || a[0] > 5)
                return fail(m, a[0] > 5 ? "pickle protocol newer than 5"
                                        : "pickle protocol 0 or 1 (text pickles are not read)");
            break;
        case 0x95: /* FRAME: a length hint only */
            if (take(m, a, 8))
                return -1;
            break;
        case '.': /* STOP */
            if (m->sp != 1 || m->nmarks)
                return fail(m, "STOP with other than one object on the stack");
            m->d->root = m->stack[0];
            return 0;
        case '(': /* MARK */
            if (GROW(m->marks, m->nmarks, m->capm, m->nmarks + 1))
                return fail_oom(m);
            m->marks[m->nmarks++] = m->sp;
            break;
        case '0': /* POP */
            if (!avail(m))
                return fail(m, "POP with an empty stack");
            m->sp--;
            break;
        case '1': /* POP_MARK */
            if (pop_mark(m, &from))
                return -1;
            m->sp = from;
            break;
        case '}': /* EMPTY_DICT */
            if (push(m, new_node(m, PK_DICT, 0, 0)))
                return -1;
            break;
        case ']': /* EMPTY_LIST */
            if (push(m, new_node(m, PK_LIST, 0, 0)))
                return -1;
            break;
        case ')': /* EMPTY_TUPLE */
            if (push(m, new_node(m, PK_TUPLE, 0, 0)))
                return -1;
            break;
        case 'd': /* DICT */
        case 'l': /* LIST */
        case 't': /* TUPLE */
            if (pop_mark(m, &from) ||
                build(m, op == 'd' ? PK_DICT : op == 'l' ? PK_LIST : PK_TUPLE, from))
                return -1;
            break;
        case 0x85: /* TUPLE1 */
        case 0x86: /* TUPLE2 */
        case 0x87: /* TUPLE3 */
            if (avail(m) < (size_t)(op - 0x84))
                return fail(m, "TUPLE1-3 with too few objects on the stack");
            if (build(m, PK_TUPLE, m->sp - (size_t)(op - 0x84)))
                return -1;
            break;
        case 's': /* SETITEM */
        case 'u': /* SETITEMS */
        case 'a': /* APPEND */
        case 'e': { /* APPENDS */
            int dict = op == 's' || op == 'u';
            if (op == 'u' || op == 'e') {
                if (pop_mark(m, &from))
                    return -1;
            } else {
                if (avail(m) < (size_t)(dict ? 2 : 1) + 1)
                    return fail(m, "SETITEM/APPEND with too few objects on the stack");
                from = m->sp - (dict ? 2 : 1);
            }
            if (from == 0 || from - 1 < m->sp - avail(m))
                return fail(m, "SETITEM(S)/APPEND(S) with no container below");
            pk_ref c = m->stack[from - 1];
            if (!is_container(&m->d->n[c], dict ? PK_DICT : PK_LIST))
                return fail(m, dict ? "SETITEM(S) on an object that is not a dict"
                                    : "APPEND(S) on an object that is not a list");
            if (dict && (m->sp - from) % 2)
                return fail(m, "SETITEMS with a key and no value");
            if (extend(m, c, from))
                return -1;
            break;
        }
        case 'J': /* BININT */
            if (take(m, a, 4) || push(m, new_node(m, PK_INT, 0, (uint64_t)(int64_t)(int32_t)
                                                               (uint32_t)le(a, 4))))
                return -1;
            break;
        case 'K': /* BININT1 */
            if (take(m, a, 1) || push(m, shared(m, a[0])))
                return -1;
            break;
        case 'M': /* BININT2 */
            if (take(m, a, 2) || push(m, new_node(m, PK_INT, 0, le(a, 2))))
                return -1;
            break;
        case 0x8a: /* LONG1 */
            if (take(m, a, 1) || push_long(m, a[0]))
                return -1;
            break;
        case 0x8b: /* LONG4 */
            if (take(m, a, 4))
                return -1;
            if (a[3] & 0x80)
                return fail(m, "LONG4 with a negative length");
            if (push_long(m, le(a, 4)))
                return -1;
            break;
        case 'G': { /* BINFLOAT: big endian */
            if (take(m, a, 8))
                return -1;
            uint64_t bits = 0;
            for (int i = 0; i < 8; i++)
                bits = bits << 8 | a[i];
            if (push(m, new_node(m, PK_FLOAT, 0, bits)))
                return -1;
            break;
        }
        case 'N':
            if (push(m, shared(m, 256)))
                return -1;
            break;
        case 0x88: /* NEWTRUE */
        case 0x89: /* NEWFALSE */
            if (push(m, shared(m, op == 0x88 ? 258 : 257)))
                return -1;
            break;
        case 0x8c: /* SHORT_BINUNICODE */
        case 'C':  /* SHORT_BINBYTES */
            if (take(m, a, 1) || push_bytes(m, op == 'C' ? PK_BYTES : PK_STR, a[0]))
                return -1;
            break;
        case 'X': /* BINUNICODE */
        case 'B': /* BINBYTES */
            if (take(m, a, 4) || push_bytes(m, op == 'B' ? PK_BYTES : PK_STR, le(a, 4)))
                return -1;
            break;
        case 0x8d: /* BINUNICODE8 */
        case 0x8e: /* BINBYTES8 */
        case 0x96: /* BYTEARRAY8 */
            if (take(m, a, 8) || push_bytes(m, op == 0x8d ? PK_STR : PK_BYTES, le(a, 8)))
                return -1;
            break;
        case 0x94: /* MEMOIZE */
            if (memo_put(m, m->nmemo))
                return -1;
            break;
        case 'q': /* BINPUT */
        case 'r': /* LONG_BINPUT */
            if (take(m, a, op == 'q' ? 1 : 4) || memo_put(m, le(a, op == 'q' ? 1 : 4)))
                return -1;
            break;
        case 'h': /* BINGET */
        case 'j': /* LONG_BINGET */
            if (take(m, a, op == 'h' ? 1 : 4) || memo_get(m, le(a, op == 'h' ? 1 : 4)))
                return -1;
            break;
        default: {
            const char *nm = op_name(op);
            char msg[200];
            if (nm)
                snprintf(msg, sizeof msg, "opcode %s (0x%02x) is not read: only plain data "
                         "(dicts, lists, tuples, strings, numbers) is, and nothing is ever "
                         "executed", nm, op);
            else
                snprintf(msg, sizeof msg, "unknown pickle opcode 0x%02x", op);
            return fail(m, msg);
        }
        }
    }
}

/* Makes every container's items one contiguous run (chunks of later batches are copied to
 * the end), so pk_item is an index. */
static int flatten(vm *m)
{
    pk_doc *d = m->d;
    for (size_t i = 0; i < d->nn; i++) {
        pk_node *x = &d->n[i];
        if (x->type != PK_LIST && x->type != PK_TUPLE && x->type != PK_DICT)
            continue;
        if (!x->len) {
            x->v = 0;
            continue;
        }
        uint32_t head = (uint32_t)(x->v >> 32);
        if (m->ch[head].next == UINT32_MAX) {
            x->v = m->ch[head].start;
            continue;
        }
        size_t total = (size_t)x->len * (x->type == PK_DICT ? 2 : 1);
        if (d->ni + total >= UINT32_MAX || GROW(d->items, d->ni, d->capi, d->ni + total))
            return fail_oom(m);
        x = &d->n[i];
        size_t at = d->ni;
        for (uint32_t c = head; c != UINT32_MAX; c = m->ch[c].next) {
            memcpy(d->items + d->ni, d->items + m->ch[c].start,
                   m->ch[c].count * sizeof *d->items);
            d->ni += m->ch[c].count;
        }
        x->v = at;
    }
    return 0;
}

static int load(vm *m, pk_doc **out, uint64_t size_hint)
{
    *out = NULL;
    m->d = calloc(1, sizeof *m->d);
    int rc = m->d ? 0 : fail_oom(m);
    /* about one node per 12 bytes and one item per 5 in real snapshots: start near there
     * rather than doubling up to it (only a hint: a wrong guess costs a realloc) */
    size_t hn = (size_t)(size_hint / 12), hi = (size_t)(size_hint / 5);
    if (!rc && hn > 1024 && (GROW(m->d->n, m->d->nn, m->d->capn, hn) ||
                             GROW(m->d->items, m->d->ni, m->d->capi, hi)))
        rc = fail_oom(m);
    if (!rc)
        rc = run(m) ? -1 : flatten(m) ? -1 : 0;
    free(m->stack);
    free(m->marks);
    free(m->memo);
    free(m->ch);
    if (rc) {
        pk_free(m->d);
        return m->err && m->err->code ? m->err->code : GMS_EFORMAT;
    }
    *out = m->d;
    return 0;
}

int pk_parse(const void *buf, size_t len, const char *name, pk_doc **out, gms_error *err)
{
    vm m = {.name = name, .buf = buf, .len = len, .err = err};
    gms_error_clear(err);
    return load(&m, out, len);
}

int pk_load(const char *path, pk_doc **out, gms_error *err)
{
    gms_error_clear(err);
    *out = NULL;
    vm m = {.name = path, .err = err, .cap = 1u << 18};
    m.gz = gzopen(path, "rb"); /* reads plain files as they are */
    if (!m.gz)
        return gms_error_set(err, GMS_EIO, "%s: cannot open", path);
    gzbuffer(m.gz, 1u << 17);
    m.own = malloc(m.cap);
    if (!m.own) {
        gzclose(m.gz);
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", path);
    }
    m.buf = m.own;
    struct stat st;
    uint64_t hint = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
    if (gzdirect(m.gz) == 0)
        hint = 0; /* compressed: its size says little about the pickle's */
    int rc = load(&m, out, hint);
    free(m.own);
    gzclose(m.gz);
    return rc;
}

int pk_sniff(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    gzFile g = gzopen(path, "rb");
    if (!g)
        return 0;
    unsigned char b[2];
    int n = gzread(g, b, 2);
    gzclose(g);
    return n == 2 && b[0] == 0x80 && b[1] >= 2 && b[1] <= 5;
}

void pk_free(pk_doc *d)
{
    if (!d)
        return;
    free(d->n);
    free(d->items);
    free(d->s);
    free(d);
}
