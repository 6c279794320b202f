/* kineto_mem_events: a kmem_trace handed out as .gmt events (kineto_mem.h says which). */
#include <stdlib.h>

#include "gmt.h"
#include "kineto_mem.h"

struct kmem_iter {
    kmem_trace *k;
    size_t pos;           /* next step, see kmem_iter_next */
    gmt_output out;       /* the output of the CALL handed out last */
};

size_t kmem_priming_ops(const kmem_trace *k)
{
    size_t n = k->n_pre + (k->pre_rest > 0);
    return n + (k->initial_reserved > k->initial_allocated);
}

int kmem_iter_new(kmem_trace *k, kmem_iter **out, gms_error *err)
{
    *out = calloc(1, sizeof **out);
    if (!*out) {
        kmem_free(k);
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    }
    (*out)->k = k;
    return 0;
}

static void call(kmem_iter *it, gmt_event *ev, const char *op, uint64_t id, uint64_t size)
{
    gmt_event_init(ev, GMT_CALL);
    ev->op = op;
    it->out = (gmt_output){.id = id, .size = size, .alias_of = -1};
    ev->n_outputs = 1;
    ev->outputs = &it->out;
}

/* Steps: the preexisting blocks, the rest (a CONSTANT), the cached-free block and its
 * release, then one event per memory event. */
int kmem_iter_next(kmem_iter *it, gmt_event *ev, gms_error *err)
{
    (void)err;
    const kmem_trace *k = it->k;
    size_t p = it->pos++;
    if (p < k->n_pre) {
        call(it, ev, "preexisting", p + 1, k->pre_sizes[p]);
        return 1;
    }
    p -= k->n_pre;
    if (k->pre_rest > 0) {
        if (p == 0) {
            gmt_event_init(ev, GMT_CONSTANT);
            ev->id = k->n_pre + 1;
            ev->size = k->pre_rest;
            return 1;
        }
        p--;
    }
    if (k->initial_reserved > k->initial_allocated) {
        if (p == 0) {
            call(it, ev, "cached-free", k->n_pre + 2, k->initial_reserved - k->initial_allocated);
            return 1;
        }
        if (p == 1) {
            gmt_event_init(ev, GMT_RELEASE);
            ev->id = k->n_pre + 2;
            return 1;
        }
        p -= 2;
    }
    if (p >= k->n)
        return 0;
    const kmem_event *e = &k->ev[p];
    if (e->bytes > 0) {
        call(it, ev, "alloc", e->id, (uint64_t)e->bytes);
    } else {
        gmt_event_init(ev, GMT_RELEASE);
        ev->id = e->id;
    }
    return 1;
}

const kmem_trace *kmem_iter_trace(const kmem_iter *it)
{
    return it->k;
}

void kmem_iter_free(kmem_iter *it)
{
    if (!it)
        return;
    kmem_free(it->k);
    free(it);
}
